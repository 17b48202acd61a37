// The parts of the C ABI that are plain C: version, status names, image setup and the per-thread
// error message. Everything else is Swift (Sources/BlazeKitC).
#define _GNU_SOURCE
#include "blazekit.h"
#include "blazekit_internal.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define BLAZEKIT_STR2(x) #x
#define BLAZEKIT_STR(x) BLAZEKIT_STR2(x)

uint32_t blazekit_version(void) {
    return (uint32_t)BLAZEKIT_VERSION_MAJOR << 16 | (uint32_t)BLAZEKIT_VERSION_MINOR << 8 | (uint32_t)BLAZEKIT_VERSION_PATCH;
}

const char *blazekit_version_string(void) {
    return BLAZEKIT_STR(BLAZEKIT_VERSION_MAJOR) "." BLAZEKIT_STR(BLAZEKIT_VERSION_MINOR) "." BLAZEKIT_STR(BLAZEKIT_VERSION_PATCH);
}

const char *blazekit_status_name(int32_t status) {
    switch (status) {
    case BLAZEKIT_OK: return "BLAZEKIT_OK";
    case BLAZEKIT_ERROR_INVALID_ARGUMENT: return "BLAZEKIT_ERROR_INVALID_ARGUMENT";
    case BLAZEKIT_ERROR_INVALID_OPTION: return "BLAZEKIT_ERROR_INVALID_OPTION";
    case BLAZEKIT_ERROR_MODEL: return "BLAZEKIT_ERROR_MODEL";
    case BLAZEKIT_ERROR_RUNNING_MODE: return "BLAZEKIT_ERROR_RUNNING_MODE";
    case BLAZEKIT_ERROR_TIMESTAMP: return "BLAZEKIT_ERROR_TIMESTAMP";
    case BLAZEKIT_ERROR_CLOSED: return "BLAZEKIT_ERROR_CLOSED";
    case BLAZEKIT_ERROR_INTERNAL: return "BLAZEKIT_ERROR_INTERNAL";
    default: return "BLAZEKIT_UNKNOWN_STATUS";
    }
}

void blazekit_image_init(blazekit_image *image, const void *pixels, size_t byte_count, int32_t width,
                         int32_t height, int32_t format) {
    if (!image) return;
    memset(image, 0, sizeof *image);
    image->struct_size = sizeof *image;
    image->pixels = pixels;
    image->byte_count = byte_count;
    image->width = width;
    image->height = height;
    image->format = format;
    size_t bpp = format == BLAZEKIT_PIXEL_FORMAT_RGB ? 3 : format == BLAZEKIT_PIXEL_FORMAT_GRAY ? 1 : 4;
    image->bytes_per_row = width > 0 ? (size_t)width * bpp : 0;
    image->orientation = BLAZEKIT_ORIENTATION_UP;
}

static pthread_key_t error_key;
static pthread_once_t error_key_once = PTHREAD_ONCE_INIT;

static void make_error_key(void) { pthread_key_create(&error_key, free); }

void blazekit_internal_set_error(const char *message) {
    pthread_once(&error_key_once, make_error_key);
    char *old = pthread_getspecific(error_key);
    char *copy = message ? strdup(message) : NULL;
    pthread_setspecific(error_key, copy);
    free(old);
}

const char *blazekit_last_error_message(void) {
    pthread_once(&error_key_once, make_error_key);
    const char *message = pthread_getspecific(error_key);
    return message ? message : "";
}

const char *blazekit_internal_library_path(void) {
    Dl_info info;
    if (dladdr((void *)&blazekit_internal_library_path, &info) == 0) return NULL;
    return info.dli_fname;
}
