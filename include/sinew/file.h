/* Output files written whole or not at all, alone or several together.
 *
 * A file is first staged: its bytes go to a temporary file beside the target (a short hidden
 * name, so a target whose name is near NAME_MAX still works), flushed to disk, with the mode
 * an ordinary new file gets (0666 less the umask) or, when it replaces a file, that file's
 * mode. Committing renames it over the target, so the target keeps its old content or gets
 * the whole new one; discarding removes it. A command with several outputs stages every one
 * before committing any, so a failure leaves none of them written.
 *
 * Links are written through (the link stays, its target is replaced); a target that exists
 * and is not a regular file (a device, a FIFO, a folder) is refused. */
#ifndef SINEW_FILE_H
#define SINEW_FILE_H

#include "sinew/base.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SINEW_FILE_PATH_MAX 4096

typedef struct sinew_staged_file {
    char target[SINEW_FILE_PATH_MAX]; /* the path the file will have (links resolved) */
    /* The temporary file, or "" when there is none. Filled in before the file is created, so
     * a signal handler that removes every non-empty `temp` it knows of (unlink(2) is
     * async-signal-safe) leaves nothing behind whenever it runs. */
    char temp[SINEW_FILE_PATH_MAX];
} sinew_staged_file;

/* Stages `size` bytes for `path` into *file (which the caller keeps until it commits or
 * discards). On failure nothing is left on disk and file->temp is "". */
sinew_result sinew_file_stage(const char *path, const void *data, size_t size,
                              sinew_staged_file *file, sinew_error *err);
/* Renames the staged file over its target. On failure the temporary file is removed. */
sinew_result sinew_file_commit(sinew_staged_file *file, sinew_error *err);
/* Removes the staged file (nothing happens when there is none). */
void sinew_file_discard(sinew_staged_file *file);

/* Stage and commit in one: `path` gets exactly these bytes or keeps what it had. */
sinew_result sinew_file_write_atomic(const char *path, const void *data, size_t size,
                                     sinew_error *err);

/* 1 when the two paths name one existing file (the same inode: another spelling, a symlink
 * or a hard link), or are spelled the same. */
int sinew_file_same(const char *a, const char *b);

#ifdef __cplusplus
}
#endif
#endif
