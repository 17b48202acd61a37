/* What the C tests share: the check macros (one line per failed check, counted for the "N passed, M failed"
 * line Tools/checks/ctest.sh adds up), the fixture photos, and loading them. Run from the repository root. */
#ifndef BLAZEKIT_TEST_CHECK_H
#define BLAZEKIT_TEST_CHECK_H
#include "blazekit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int passed, failed;
static const char *current;

#define CHECK(cond, ...) do { \
    if (cond) passed++; \
    else { failed++; printf("FAIL %s (%s:%d): %s: ", current, __FILE__, __LINE__, #cond); printf(__VA_ARGS__); printf("\n"); } \
} while (0)
/* A status and, on failure, a message containing `needle`. */
#define CHECK_STATUS(call, want, needle) do { \
    int got_ = (call); \
    CHECK(got_ == (want), "%s returned %s, expected %s (message: %s)", #call, blazekit_status_name(got_), \
          blazekit_status_name(want), blazekit_last_error_message()); \
    if ((want) != BLAZEKIT_OK) CHECK(contains(blazekit_last_error_message(), needle), \
          "message \"%s\" lacks \"%s\"", blazekit_last_error_message(), needle ? (const char *)needle : ""); \
} while (0)

static inline int contains(const char *haystack, const char *needle) { return !needle || strstr(haystack, needle) != NULL; }

#define POSE_PHOTO "Tests/BlazeKitTests/Fixtures/pose/mpii_052475643.png"
#define HAND_PHOTO "Tests/BlazeKitTests/Fixtures/hand/panoptic_ex2_2.flv_000040_l.png"

typedef struct { uint8_t *rgb; int32_t w, h; } photo;

static inline photo load(const char *path) {
    photo p = {0};
    int32_t orientation = -1;
    int s = blazekit_image_decode_file(path, &p.rgb, &p.w, &p.h, &orientation);
    if (s != BLAZEKIT_OK) { printf("cannot decode %s: %s\n", path, blazekit_last_error_message()); exit(2); }
    return p;
}

static inline blazekit_image rgb_image(const photo *p) {
    blazekit_image image;
    blazekit_image_init(&image, p->rgb, (size_t)p->w * p->h * 3, p->w, p->h, BLAZEKIT_PIXEL_FORMAT_RGB);
    return image;
}

static inline uint8_t *read_file(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *bytes = malloc((size_t)n);
    *size = fread(bytes, 1, (size_t)n, f);
    fclose(f);
    return bytes;
}

#endif
