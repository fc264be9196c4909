/* An embedder's program: builds a procedural fox the way a template rigger leaves it (no
 * tail bones), runs the main job through the library and checks it grew a chain. Built
 * against the installed library (find_package, pkg-config) and through add_subdirectory. */
#include <stdio.h>
#include <string.h>

#include "sinew/creature.h"
#include "sinew/document.h"
#include "sinew/pipeline.h"

int main(void)
{
    sinew_model *fox = NULL;
    sinew_document *doc = NULL;
    sinew_error err = {0};
    if (sinew_creature_build(SINEW_CREATURE_FOX, NULL, &fox, NULL, &err) ||
        sinew_document_from_model(fox, &doc, &err)) {
        fprintf(stderr, "consumer: %s\n", err.message);
        return 1;
    }
    sinew_tail_options options;
    memset(&options, 0, sizeof options);
    options.no_bake = 1;
    sinew_tail_result run;
    memset(&run, 0, sizeof run);
    sinew_result r = sinew_tail_run(doc, &options, &run, &err);
    const unsigned chains = run.plan.chain_count;
    sinew_tail_result_free(&run);
    sinew_document_free(doc);
    sinew_model_free(fox);
    if (r != SINEW_OK) {
        fprintf(stderr, "consumer: %s\n", err.message);
        return 1;
    }
    printf("consumer: %u chain(s) grown\n", chains);
    return chains == 1 ? 0 : 1;
}
