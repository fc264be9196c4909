/* The CLI's JSON reports under memory pressure: the CLI builds them with unchecked cJSON calls
 * and relies on cli_json_init's hooks to notice any allocation cJSON could not get, and on
 * cli_json_text to refuse to print such a tree. Here allocation N fails, for every N until a
 * report needs fewer: each time the text is either NULL or exactly the text of a report built
 * with all the memory it wants. Links the CLI's cli.c itself. */
#include "test_util.h"

#include <cjson/cJSON.h>

#include "cli.h"

static long allocations, fail_at;

static void *failing_malloc(size_t size)
{
    if (fail_at && ++allocations == fail_at) return NULL;
    return malloc(size);
}

/* Appends item to array, deleting it when that fails: the one step of the build that would
 * otherwise leave an orphan to leak (the CLI exits right after reporting out of memory; a
 * test that loops must not leak). */
static void push(cJSON *array, cJSON *item)
{
    if (!cJSON_AddItemToArray(array, item)) cJSON_Delete(item);
}

/* A report as the commands build one: nested objects, arrays of objects, strings, numbers,
 * nothing checked but the pushes (see push). */
static cJSON *report(void)
{
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "input", "Fox.glb");
    cJSON_AddNumberToObject(root, "height", 79.25);
    cJSON *clips = cJSON_AddArrayToObject(root, "clips");
    for (int c = 0; c < 3; c++) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "clip", c == 1 ? "Walk" : "Run");
        cJSON_AddNumberToObject(o, "p95", 0.125 * c);
        cJSON_AddBoolToObject(o, "looped", c != 2);
        push(clips, o);
    }
    cJSON *size = cJSON_AddArrayToObject(root, "size");
    for (int k = 1; k <= 3; k++)
        push(size, cJSON_CreateNumber(k));
    return root;
}

static void test_report_is_whole_or_out_of_memory(void **state)
{
    (void)state;
    const cli_json_style styles[] = {CLI_JSON_COMPACT, CLI_JSON_INDENTED, CLI_JSON_TABLE};
    for (int s = 0; s < 3; s++) {
        fail_at = 0;
        cJSON *tree = report();
        char *want = cli_json_text(tree, styles[s]);
        cJSON_Delete(tree);
        assert_non_null(want);
        long refused = 0;
        for (long n = 1;; n++) {
            allocations = 0;
            fail_at = n;
            tree = report();
            char *got = cli_json_text(tree, styles[s]);
            cJSON_Delete(tree);
            int hit = allocations >= n;
            fail_at = 0;
            if (!hit) {
                assert_string_equal(got, want);
                free(got);
                break;
            }
            refused++;
            if (got) fail_msg("style %d, allocation %ld refused: printed %s", s, n, got);
        }
        assert_true(refused > 20); /* the report allocates through the hooks */
        free(want);
    }
}

int main(void)
{
    cli_json_init(failing_malloc);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_report_is_whole_or_out_of_memory),
    };
    return test_exit_code(cmocka_run_group_tests(tests, NULL, NULL));
}
