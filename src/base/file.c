/* Whole-or-nothing output files: staged beside the target, flushed, renamed into place. */
/* realpath(3), lstat(2), readlink(2), fsync(2) and clock_gettime are POSIX 2008 / XSI. */
#define _XOPEN_SOURCE 700
#include "sinew/file.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* `path` with a symlink resolved to the file it names (created when it does not exist yet:
 * a dangling link's target, relative to the link's folder), so rename(2) replaces the file
 * and keeps the link. */
static sinew_result resolve_target(const char *path, char *target, sinew_error *err)
{
    struct stat st;
    if (lstat(path, &st) != 0 || !S_ISLNK(st.st_mode)) {
        if ((size_t)snprintf(target, SINEW_FILE_PATH_MAX, "%s", path) >= SINEW_FILE_PATH_MAX)
            return sinew_error_set(err, SINEW_ERR_ARGUMENT, "%s: path is too long", path);
        return SINEW_OK;
    }
    char real[PATH_MAX];
    if (realpath(path, real)) {
        if ((size_t)snprintf(target, SINEW_FILE_PATH_MAX, "%s", real) >= SINEW_FILE_PATH_MAX)
            return sinew_error_set(err, SINEW_ERR_ARGUMENT, "%s: path is too long", path);
        return SINEW_OK;
    }
    char dest[PATH_MAX];
    ssize_t n = readlink(path, dest, sizeof dest - 1);
    if (n <= 0)
        return sinew_error_set(err, SINEW_ERR_IO, "cannot resolve the link '%s': %s", path,
                               strerror(errno));
    dest[n] = 0;
    const char *slash = strrchr(path, '/');
    int len = dest[0] == '/' || !slash ? snprintf(target, SINEW_FILE_PATH_MAX, "%s", dest)
                                       : snprintf(target, SINEW_FILE_PATH_MAX, "%.*s/%s",
                                                  (int)(slash - path), path, dest);
    if (len < 0 || len >= SINEW_FILE_PATH_MAX)
        return sinew_error_set(err, SINEW_ERR_ARGUMENT, "%s: path is too long", path);
    return SINEW_OK;
}

/* A fresh temporary name in target's folder: ".sinew-" and eight letters, short whatever the
 * target's name is. */
static int temp_name(const char *target, char *out, unsigned attempt)
{
    static unsigned counter;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    unsigned long x = (unsigned long)ts.tv_nsec ^ ((unsigned long)getpid() << 16) ^
                      ((unsigned long)++counter * 2654435761u) ^ attempt;
    char tag[9];
    for (int i = 0; i < 8; i++, x /= 26)
        tag[i] = (char)('a' + x % 26);
    tag[8] = 0;
    const char *slash = strrchr(target, '/');
    int len = slash ? snprintf(out, SINEW_FILE_PATH_MAX, "%.*s/.sinew-%s", (int)(slash - target),
                               target, tag)
                    : snprintf(out, SINEW_FILE_PATH_MAX, ".sinew-%s", tag);
    return len > 0 && len < SINEW_FILE_PATH_MAX;
}

static int write_all(int fd, const void *data, size_t size)
{
    const unsigned char *p = data;
    while (size > 0) {
        ssize_t w = write(fd, p, size);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return 0;
        p += w;
        size -= (size_t)w;
    }
    return 1;
}

sinew_result sinew_file_stage(const char *path, const void *data, size_t size,
                              sinew_staged_file *file, sinew_error *err)
{
    if (!file) return sinew_error_set(err, SINEW_ERR_ARGUMENT, "sinew_file_stage: NULL");
    file->temp[0] = 0;
    file->target[0] = 0;
    if (!path || (!data && size))
        return sinew_error_set(err, SINEW_ERR_ARGUMENT, "sinew_file_stage: NULL");
    sinew_result r = resolve_target(path, file->target, err);
    if (r != SINEW_OK) return r;
    struct stat st;
    const int replaces = stat(file->target, &st) == 0;
    if (replaces && !S_ISREG(st.st_mode))
        return sinew_error_set(err, SINEW_ERR_ARGUMENT,
                               "'%s' exists and is not a regular file: not replaced", path);
    int fd = -1;
    for (unsigned attempt = 0; fd < 0 && attempt < 64; attempt++) {
        if (!temp_name(file->target, file->temp, attempt)) {
            file->temp[0] = 0;
            return sinew_error_set(err, SINEW_ERR_ARGUMENT, "%s: path is too long", path);
        }
        /* 0666: the kernel applies the umask, as for any new file */
        fd = open(file->temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd < 0 && errno != EEXIST) break;
    }
    if (fd < 0) {
        const int saved = errno;
        file->temp[0] = 0;
        return sinew_error_set(err, SINEW_ERR_IO, "cannot create a file beside '%s': %s", path,
                               strerror(saved));
    }
    int ok = write_all(fd, data, size);
    int saved = errno;
    if (ok && replaces && fchmod(fd, st.st_mode & 07777) != 0) ok = 0, saved = errno;
    if (ok && fsync(fd) != 0) ok = 0, saved = errno;
    if (close(fd) != 0 && ok) ok = 0, saved = errno;
    if (!ok) {
        sinew_file_discard(file);
        return sinew_error_set(err, SINEW_ERR_IO, "cannot write '%s': %s", path, strerror(saved));
    }
    return SINEW_OK;
}

/* Flushes the folder holding `path`, so the rename itself survives a crash; best effort. */
static void sync_folder(const char *path)
{
    char folder[SINEW_FILE_PATH_MAX];
    const char *slash = strrchr(path, '/');
    snprintf(folder, sizeof folder, "%.*s", slash ? (int)(slash - path) + 1 : 1,
             slash ? path : ".");
    int fd = open(folder, O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        fsync(fd);
        close(fd);
    }
}

sinew_result sinew_file_commit(sinew_staged_file *file, sinew_error *err)
{
    if (!file || !file->temp[0])
        return sinew_error_set(err, SINEW_ERR_ARGUMENT, "sinew_file_commit: nothing staged");
    if (rename(file->temp, file->target) != 0) {
        const int saved = errno;
        sinew_file_discard(file);
        return sinew_error_set(err, SINEW_ERR_IO, "cannot write '%s': %s", file->target,
                               strerror(saved));
    }
    file->temp[0] = 0;
    sync_folder(file->target);
    return SINEW_OK;
}

void sinew_file_discard(sinew_staged_file *file)
{
    if (!file || !file->temp[0]) return;
    unlink(file->temp);
    file->temp[0] = 0;
}

sinew_result sinew_file_write_atomic(const char *path, const void *data, size_t size,
                                     sinew_error *err)
{
    sinew_staged_file *file = malloc(sizeof *file);
    if (!file) return sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "%s: out of memory", path);
    sinew_result r = sinew_file_stage(path, data, size, file, err);
    if (r == SINEW_OK) r = sinew_file_commit(file, err);
    free(file);
    return r;
}

int sinew_file_same(const char *a, const char *b)
{
    if (!strcmp(a, b)) return 1;
    struct stat sa, sb;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
           sa.st_ino == sb.st_ino;
}
