/* PNG output through stb_image_write (Debian libstb-dev), written to a temporary file in the
 * target folder and renamed into place so a failure leaves no partial picture. */
#include "sinew/render.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <stb/stb_image_write.h>

sinew_result sinew_render_write_png(const sinew_image *image, const char *path, sinew_error *err)
{
    size_t n = strlen(path);
    char *tmp = malloc(n + 32);
    if (!tmp) return sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "%s: out of memory", path);
    snprintf(tmp, n + 32, "%s.tmp-XXXXXX", path);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        sinew_result r = sinew_error_set(err, SINEW_ERR_IO, "%s: cannot create a file there: %s",
                                         path, strerror(errno));
        free(tmp);
        return r;
    }
    fchmod(fd, 0644); /* mkstemp makes 0600; a picture is for everyone */
    close(fd);
    int ok = stbi_write_png(tmp, (int)image->width, (int)image->height, 4, image->rgba,
                            (int)image->width * 4);
    if (!ok || rename(tmp, path) != 0) {
        sinew_result r = sinew_error_set(err, SINEW_ERR_IO, "%s: cannot write the picture: %s",
                                         path, ok ? strerror(errno) : "PNG encoder failed");
        remove(tmp);
        free(tmp);
        return r;
    }
    free(tmp);
    return SINEW_OK;
}
