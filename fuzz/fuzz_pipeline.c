/* libFuzzer harness for the main job past the loader: load from memory, then `sinew tail` as
 * the library runs it (landmarks, appendage finding, the chain, the do-no-harm check, spring
 * steps baked into every clip), write the edited document as GLB and load that again. A
 * written file that does not load, or a model that cannot be built from it, is a finding. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sinew/document.h"
#include "sinew/pipeline.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sinew_document *doc = NULL;
    sinew_error err;
    if (sinew_document_load_memory(data, size, NULL, &doc, &err) != SINEW_OK) return 0;
    sinew_tail_options options;
    memset(&options, 0, sizeof options);
    options.guard_samples = 6; /* a few moments per clip: the check's code, not its precision */
    sinew_tail_result run;
    memset(&run, 0, sizeof run);
    if (sinew_tail_run(doc, &options, &run, &err) == SINEW_OK) {
        sinew_bytes glb;
        if (sinew_document_write_glb_memory(doc, &glb, &err) == SINEW_OK) {
            sinew_document *again = NULL;
            if (sinew_document_load_memory(glb.data, glb.size, NULL, &again, &err) != SINEW_OK)
                abort();
            sinew_model *model = NULL;
            /* An edited document must still make a model, as the input did. */
            if (run.model && sinew_model_from_document(again, NULL, &model, &err) != SINEW_OK)
                abort();
            sinew_model_free(model);
            sinew_document_free(again);
            sinew_bytes_free(&glb);
        }
    }
    sinew_tail_result_free(&run);
    sinew_document_free(doc);
    return 0;
}
