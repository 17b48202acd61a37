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

/* Creates a `task` landmarker (pose, hand, holistic) from the default options with one field changed; expects
 * `status`, a message containing `needle`, and no handle. */
#define CHECK_OPTION(task, field, value, status, needle) do { \
    blazekit_##task##_landmarker_options o_; \
    blazekit_##task##_landmarker_options_init(&o_); \
    o_.field = (value); \
    blazekit_##task##_landmarker *lm_ = NULL; \
    CHECK_STATUS(blazekit_##task##_landmarker_create(&o_, &lm_), status, needle); \
    CHECK(lm_ == NULL, "no handle"); \
} while (0)

/* What every landmarker's create refuses: NULL options or out (the out pointer cleared), a struct_size out of
 * range, unknown running modes and models, thread counts outside 1…64. */
#define CHECK_COMMON_CREATE_ERRORS(task) do { \
    blazekit_##task##_landmarker_options c_; \
    blazekit_##task##_landmarker_options_init(&c_); \
    blazekit_##task##_landmarker *h_ = (blazekit_##task##_landmarker *)0x1; \
    CHECK_STATUS(blazekit_##task##_landmarker_create(NULL, &h_), BLAZEKIT_ERROR_INVALID_ARGUMENT, "options is NULL"); \
    CHECK(h_ == NULL, "out cleared on failure"); \
    CHECK_STATUS(blazekit_##task##_landmarker_create(&c_, NULL), BLAZEKIT_ERROR_INVALID_ARGUMENT, "out is NULL"); \
    const size_t sizes_[] = {0, 3, sizeof c_ + 8, (size_t)-1}; \
    for (size_t i_ = 0; i_ < 4; i_++) CHECK_OPTION(task, struct_size, sizes_[i_], BLAZEKIT_ERROR_INVALID_ARGUMENT, "struct_size"); \
    const int32_t modes_[] = {3, -1}, models_[] = {2, -1}, threads_[] = {0, 65}; \
    for (size_t i_ = 0; i_ < 2; i_++) { \
        CHECK_OPTION(task, running_mode, modes_[i_], BLAZEKIT_ERROR_INVALID_OPTION, "running_mode"); \
        CHECK_OPTION(task, model, models_[i_], BLAZEKIT_ERROR_INVALID_OPTION, "option model"); \
        CHECK_OPTION(task, thread_count, threads_[i_], BLAZEKIT_ERROR_INVALID_OPTION, "thread_count"); \
    } \
} while (0)

/* An IMAGE-mode `task` landmarker refuses NULLs (clearing the out pointer) and an image of width 0, the other
 * modes' calls, closes twice, then refuses every call as CLOSED; close(NULL) is an error. `lm` is left closed,
 * for the caller to destroy. */
#define CHECK_IMAGE_MODE_THEN_CLOSED(task, lm, image) do { \
    blazekit_##task##_result *r_ = (blazekit_##task##_result *)0x1; \
    CHECK_STATUS(blazekit_##task##_landmarker_detect(NULL, image, &r_), BLAZEKIT_ERROR_INVALID_ARGUMENT, "landmarker is NULL"); \
    CHECK_STATUS(blazekit_##task##_landmarker_detect(lm, NULL, &r_), BLAZEKIT_ERROR_INVALID_ARGUMENT, "image is NULL"); \
    CHECK(r_ == NULL, "out cleared"); \
    CHECK_STATUS(blazekit_##task##_landmarker_detect(lm, image, NULL), BLAZEKIT_ERROR_INVALID_ARGUMENT, "out is NULL"); \
    blazekit_image narrow_ = *(image); \
    narrow_.width = 0; \
    CHECK_STATUS(blazekit_##task##_landmarker_detect(lm, &narrow_, &r_), BLAZEKIT_ERROR_INVALID_ARGUMENT, "width"); \
    CHECK_STATUS(blazekit_##task##_landmarker_detect_for_video(lm, image, 1, &r_), BLAZEKIT_ERROR_RUNNING_MODE, "VIDEO"); \
    CHECK_STATUS(blazekit_##task##_landmarker_detect_async(lm, image, 1), BLAZEKIT_ERROR_RUNNING_MODE, "LIVE_STREAM"); \
    CHECK_STATUS(blazekit_##task##_landmarker_close(lm), BLAZEKIT_OK, NULL); \
    CHECK_STATUS(blazekit_##task##_landmarker_close(lm), BLAZEKIT_OK, NULL); \
    CHECK_STATUS(blazekit_##task##_landmarker_detect(lm, image, &r_), BLAZEKIT_ERROR_CLOSED, "closed"); \
    CHECK_STATUS(blazekit_##task##_landmarker_detect_for_video(lm, image, 5, &r_), BLAZEKIT_ERROR_CLOSED, "closed"); \
    CHECK_STATUS(blazekit_##task##_landmarker_detect_async(lm, image, 5), BLAZEKIT_ERROR_CLOSED, "closed"); \
    CHECK_STATUS(blazekit_##task##_landmarker_close(NULL), BLAZEKIT_ERROR_INVALID_ARGUMENT, "NULL"); \
    CHECK(r_ == NULL, "no result"); \
} while (0)

/* A VIDEO-mode `task` landmarker refuses the IMAGE and LIVE_STREAM calls and detect_for_video with NULLs. */
#define CHECK_VIDEO_MODE_MISUSE(task, lm, image) do { \
    blazekit_##task##_result *r_ = NULL; \
    CHECK_STATUS(blazekit_##task##_landmarker_detect(lm, image, &r_), BLAZEKIT_ERROR_RUNNING_MODE, "IMAGE"); \
    CHECK_STATUS(blazekit_##task##_landmarker_detect_async(lm, image, 1000), BLAZEKIT_ERROR_RUNNING_MODE, "LIVE_STREAM"); \
    CHECK_STATUS(blazekit_##task##_landmarker_detect_for_video(NULL, image, 1000, &r_), BLAZEKIT_ERROR_INVALID_ARGUMENT, "landmarker is NULL"); \
    CHECK_STATUS(blazekit_##task##_landmarker_detect_for_video(lm, NULL, 1000, &r_), BLAZEKIT_ERROR_INVALID_ARGUMENT, "image is NULL"); \
    CHECK_STATUS(blazekit_##task##_landmarker_detect_for_video(lm, image, 1000, NULL), BLAZEKIT_ERROR_INVALID_ARGUMENT, "out is NULL"); \
    CHECK(r_ == NULL, "no result"); \
} while (0)

static inline int contains(const char *haystack, const char *needle) { return !needle || strstr(haystack, needle) != NULL; }

/* `o` (a `task` options struct, initialized) with `threads` threads and fixed_plan on in variants 1 and 2 (variant 2's
 * struct_size ending before the field, so the library takes the default, off): a landmarker made from it runs
 * IMAGE-mode detect on `image` into `out`, then is destroyed. For the fixed_plan tests (since 0.6). */
#define DETECT_WITH_PLAN(task, o, threads, variant, image, out) do { \
    (o).thread_count = (threads); \
    (o).fixed_plan = (variant) > 0; \
    if ((variant) == 2) (o).struct_size = offsetof(blazekit_##task##_landmarker_options, fixed_plan); \
    blazekit_##task##_landmarker *plan_lm_ = NULL; \
    CHECK_STATUS(blazekit_##task##_landmarker_create(&(o), &plan_lm_), BLAZEKIT_OK, NULL); \
    CHECK_STATUS(blazekit_##task##_landmarker_detect(plan_lm_, (image), (out)), BLAZEKIT_OK, NULL); \
    blazekit_##task##_landmarker_destroy(plan_lm_); \
} while (0)

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
