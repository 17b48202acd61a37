/* Tests of the pose and hand functions of blazekit.h (the holistic ones: test_holistic.c) and every bad input
 * the header promises to refuse. Built and run by Tools/checks/ctest.sh (also under AddressSanitizer). Run from the repository root.
 * Prints one line per failed check, then "N passed, M failed" (and "K expected failures"). */
#define _GNU_SOURCE
#include "blazekit.h"
#include "check.h"

#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <dirent.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

extern char **environ;
int openblas_get_num_threads(void);
void openblas_set_num_threads(int);

static int xfailed;

#define POSE_MODEL_DIR "Models/bkm"

static blazekit_pose_landmarker *make_pose(int mode, blazekit_pose_result_callback cb, void *user, int masks) {
    blazekit_pose_landmarker_options o;
    blazekit_pose_landmarker_options_init(&o);
    o.running_mode = mode;
    o.result_callback = cb;
    o.user_data = user;
    o.output_segmentation_masks = masks;
    blazekit_pose_landmarker *lm = NULL;
    int s = blazekit_pose_landmarker_create(&o, &lm);
    if (s != BLAZEKIT_OK) { printf("cannot create a pose landmarker: %s\n", blazekit_last_error_message()); exit(2); }
    return lm;
}

static blazekit_hand_landmarker *make_hand(int mode, blazekit_hand_result_callback cb, void *user) {
    blazekit_hand_landmarker_options o;
    blazekit_hand_landmarker_options_init(&o);
    o.running_mode = mode;
    o.num_hands = 2;
    o.result_callback = cb;
    o.user_data = user;
    blazekit_hand_landmarker *lm = NULL;
    int s = blazekit_hand_landmarker_create(&o, &lm);
    if (s != BLAZEKIT_OK) { printf("cannot create a hand landmarker: %s\n", blazekit_last_error_message()); exit(2); }
    return lm;
}

static int same_pose(const blazekit_pose_result *a, const blazekit_pose_result *b) {
    if (a->pose_count != b->pose_count || a->landmarks_per_pose != b->landmarks_per_pose) return 0;
    size_t n = a->pose_count * a->landmarks_per_pose * sizeof(blazekit_landmark);
    return n == 0 || (memcmp(a->landmarks, b->landmarks, n) == 0 && memcmp(a->world_landmarks, b->world_landmarks, n) == 0);
}

static int same_hand(const blazekit_hand_result *a, const blazekit_hand_result *b) {
    if (a->hand_count != b->hand_count) return 0;
    size_t n = a->hand_count * a->landmarks_per_hand * sizeof(blazekit_landmark);
    if (n && (memcmp(a->landmarks, b->landmarks, n) || memcmp(a->world_landmarks, b->world_landmarks, n))) return 0;
    for (size_t i = 0; i < a->hand_count; i++)
        if (a->handedness[i].index != b->handedness[i].index || a->handedness[i].score != b->handedness[i].score) return 0;
    return 1;
}

/* Both landmarks and every mask value, bit for bit. */
static int same_pose_and_masks(const blazekit_pose_result *a, const blazekit_pose_result *b) {
    if (!same_pose(a, b) || a->mask_count != b->mask_count) return 0;
    for (size_t i = 0; i < a->mask_count; i++) {
        const blazekit_mask *m = &a->segmentation_masks[i], *n = &b->segmentation_masks[i];
        if (m->width != n->width || m->height != n->height
            || memcmp(m->data, n->data, (size_t)m->width * m->height * sizeof(float))) return 0;
    }
    return 1;
}

/* ---------------------------------------------------------------------------------------------- */

static void test_version(void) {
    current = "version";
    CHECK(blazekit_version() == (BLAZEKIT_VERSION_MAJOR << 16 | BLAZEKIT_VERSION_MINOR << 8 | BLAZEKIT_VERSION_PATCH), "%u", blazekit_version());
    char want[32];
    snprintf(want, sizeof want, "%d.%d.%d", BLAZEKIT_VERSION_MAJOR, BLAZEKIT_VERSION_MINOR, BLAZEKIT_VERSION_PATCH);
    CHECK(strcmp(blazekit_version_string(), want) == 0, "%s", blazekit_version_string());
    CHECK(strcmp(blazekit_status_name(BLAZEKIT_OK), "BLAZEKIT_OK") == 0, "");
    CHECK(strcmp(blazekit_status_name(BLAZEKIT_ERROR_TIMESTAMP), "BLAZEKIT_ERROR_TIMESTAMP") == 0, "");
    CHECK(strcmp(blazekit_status_name(BLAZEKIT_ERROR_CLOSED), "BLAZEKIT_ERROR_CLOSED") == 0, "");
    CHECK(strcmp(blazekit_status_name(-1), "BLAZEKIT_UNKNOWN_STATUS") == 0, "");
    CHECK(strcmp(blazekit_status_name(1000), "BLAZEKIT_UNKNOWN_STATUS") == 0, "");
    CHECK(blazekit_last_error_message() != NULL, "never NULL");
}

static void *fresh_thread_message(void *arg) {
    (void)arg;
    return (void *)(uintptr_t)(strcmp(blazekit_last_error_message(), "") == 0);
}

static void test_error_message_per_thread(void) {
    current = "error_message_per_thread";
    CHECK_STATUS((blazekit_pose_landmarker_options_init)(NULL), BLAZEKIT_ERROR_INVALID_ARGUMENT, "options is NULL");
    pthread_t t;
    void *ok = NULL;
    pthread_create(&t, NULL, fresh_thread_message, NULL);
    pthread_join(t, &ok);
    CHECK(ok, "another thread's message is \"\"");
    CHECK(strstr(blazekit_last_error_message(), "options is NULL"), "this thread's message is kept: %s", blazekit_last_error_message());
}

static void test_options_init(void) {
    current = "options_init";
    blazekit_pose_landmarker_options p;
    memset(&p, 0xAB, sizeof p);
    CHECK_STATUS(blazekit_pose_landmarker_options_init(&p), BLAZEKIT_OK, NULL);
    CHECK(p.struct_size == sizeof p, "%zu", p.struct_size);
    CHECK(p.model_asset_path == NULL && p.model_asset_buffer == NULL && p.model_asset_buffer_size == 0, "no model");
    CHECK(p.running_mode == BLAZEKIT_RUNNING_MODE_IMAGE && p.model == BLAZEKIT_MODEL_FULL && p.thread_count == 1, "");
    CHECK(p.num_poses == 1 && p.min_pose_detection_confidence == 0.5f && p.min_pose_presence_confidence == 0.5f
          && p.min_tracking_confidence == 0.5f && p.output_segmentation_masks == 0, "MediaPipe defaults");
    CHECK(p.result_callback == NULL && p.user_data == NULL, "");
    CHECK(p.accurate_mode == 0 && p.accurate_min_person_height == 120 && p.accurate_off == NULL, "accurate mode off");
    CHECK(p.legacy_solution == 0 && p.smooth_landmarks == 1 && p.smooth_segmentation == 1 && p.solution_clock == 1,
          "Tasks graph; mp.solutions' smoothing defaults");
    blazekit_hand_landmarker_options h;
    memset(&h, 0xAB, sizeof h);
    CHECK_STATUS(blazekit_hand_landmarker_options_init(&h), BLAZEKIT_OK, NULL);
    CHECK(h.struct_size == sizeof h && h.num_hands == 1 && h.min_hand_detection_confidence == 0.5f
          && h.min_hand_presence_confidence == 0.5f && h.min_tracking_confidence == 0.5f && h.result_callback == NULL, "");
    CHECK(h.accurate_mode == 0 && h.accurate_min_hand_size == 80 && h.accurate_off == NULL && h.accurate_on == NULL,
          "hand accurate mode off");
    CHECK(h.legacy_solution == 0, "hand Tasks graph");
    CHECK(p.identity_max_absent_frames == 45 && p.identity_min_similarity == 0.2f, "pose identity defaults");
    CHECK(h.identity_max_absent_frames == 45 && h.identity_min_similarity == 0.2f && h.vote_handedness == 0, "hand identity defaults");
    CHECK(p.fixed_plan == 0 && h.fixed_plan == 0, "kernels planned by timing");
    CHECK_STATUS((blazekit_hand_landmarker_options_init)(NULL), BLAZEKIT_ERROR_INVALID_ARGUMENT, "options is NULL");
    CHECK_STATUS(blazekit_hand_landmarker_options_init_sized(NULL, sizeof h), BLAZEKIT_ERROR_INVALID_ARGUMENT, "options is NULL");
}

/* Each byte of `bytes[from, to)` is 0xAB, the canary the test wrote there. */
static int untouched(const unsigned char *bytes, size_t from, size_t to) {
    for (size_t i = from; i < to; i++) if (bytes[i] != 0xAB) return 0;
    return 1;
}

/* 0.8: the init functions write no byte beyond the caller's struct. A program built with an older header (here the
 * 0.5 layout, which ended before fixed_plan) keeps the bytes after its struct and creates with defaults for the
 * fields it lacks; the unsized symbols write the 0.7 sizes; sizes the library cannot serve are refused. */
static void test_options_init_sizes(void) {
    current = "options_init_sizes";
    _Alignas(blazekit_pose_landmarker_options) unsigned char buf[sizeof(blazekit_pose_landmarker_options) + 32];
    blazekit_pose_landmarker_options *p = (blazekit_pose_landmarker_options *)(void *)buf;
    size_t older = offsetof(blazekit_pose_landmarker_options, fixed_plan);
    memset(buf, 0xAB, sizeof buf);
    CHECK_STATUS(blazekit_pose_landmarker_options_init_sized(p, older), BLAZEKIT_OK, NULL);
    CHECK(p->struct_size == older && untouched(buf, older, sizeof buf), "struct_size %zu; bytes after %zu untouched", p->struct_size, older);
    CHECK(p->num_poses == 1 && p->thread_count == 1 && p->model_asset_path == NULL && p->identity_max_absent_frames == 45,
          "defaults within the older struct");
    blazekit_pose_landmarker *lm = NULL;
    CHECK_STATUS(blazekit_pose_landmarker_create(p, &lm), BLAZEKIT_OK, NULL);
    blazekit_pose_landmarker_destroy(lm);

    memset(buf, 0xAB, sizeof buf);
    CHECK_STATUS((blazekit_pose_landmarker_options_init)(p), BLAZEKIT_OK, NULL);
    CHECK(p->struct_size == 136 && untouched(buf, 136, sizeof buf), "the unsized pose init writes 0.7's 136 bytes: %zu", p->struct_size);
    _Alignas(blazekit_hand_landmarker_options) unsigned char hbuf[sizeof(blazekit_hand_landmarker_options) + 32];
    memset(hbuf, 0xAB, sizeof hbuf);
    CHECK_STATUS((blazekit_hand_landmarker_options_init)((blazekit_hand_landmarker_options *)(void *)hbuf), BLAZEKIT_OK, NULL);
    CHECK(((blazekit_hand_landmarker_options *)(void *)hbuf)->struct_size == 136 && untouched(hbuf, 136, sizeof hbuf),
          "the unsized hand init writes 0.7's 136 bytes");
    _Alignas(blazekit_holistic_landmarker_options) unsigned char obuf[sizeof(blazekit_holistic_landmarker_options) + 32];
    memset(obuf, 0xAB, sizeof obuf);
    CHECK_STATUS((blazekit_holistic_landmarker_options_init)((blazekit_holistic_landmarker_options *)(void *)obuf), BLAZEKIT_OK, NULL);
    CHECK(((blazekit_holistic_landmarker_options *)(void *)obuf)->struct_size == 128 && untouched(obuf, 128, sizeof obuf),
          "the unsized holistic init writes 0.7's 128 bytes");

    memset(buf, 0xAB, sizeof buf);
    CHECK_STATUS(blazekit_pose_landmarker_options_init_sized(p, 4), BLAZEKIT_ERROR_INVALID_ARGUMENT, "size is 4");
    CHECK_STATUS(blazekit_pose_landmarker_options_init_sized(p, sizeof *p + 8), BLAZEKIT_ERROR_INVALID_ARGUMENT, "no newer than this library");
    CHECK(untouched(buf, 0, sizeof buf), "a refused init writes nothing");
}

static void dummy_pose_cb(void *u, int32_t s, const char *m, const blazekit_pose_result *r, int64_t t) { (void)u; (void)s; (void)m; (void)r; (void)t; }
static void dummy_hand_cb(void *u, int32_t s, const char *m, const blazekit_hand_result *r, int64_t t) { (void)u; (void)s; (void)m; (void)r; (void)t; }

static void test_create_errors(void) {
    current = "create_errors";
    blazekit_pose_landmarker_options o;
    blazekit_pose_landmarker *lm = NULL;
    CHECK_COMMON_CREATE_ERRORS(pose);
    CHECK_COMMON_CREATE_ERRORS(hand);
#define WITH(field, value, status, needle) CHECK_OPTION(pose, field, value, status, needle)
    WITH(num_poses, 0, BLAZEKIT_ERROR_INVALID_OPTION, "num_poses");
    WITH(num_poses, -5, BLAZEKIT_ERROR_INVALID_OPTION, "num_poses");
    WITH(min_pose_detection_confidence, -0.1f, BLAZEKIT_ERROR_INVALID_OPTION, "min_pose_detection_confidence");
    WITH(min_pose_presence_confidence, 1.5f, BLAZEKIT_ERROR_INVALID_OPTION, "min_pose_presence_confidence");
    WITH(min_tracking_confidence, NAN, BLAZEKIT_ERROR_INVALID_OPTION, "min_tracking_confidence");
    WITH(running_mode, BLAZEKIT_RUNNING_MODE_LIVE_STREAM, BLAZEKIT_ERROR_INVALID_OPTION, "result_callback");
    WITH(result_callback, dummy_pose_cb, BLAZEKIT_ERROR_INVALID_OPTION, "result_callback");
    WITH(model_asset_path, "/nonexistent/pose.task", BLAZEKIT_ERROR_MODEL, "/nonexistent/pose.task");
    WITH(model_asset_path, POSE_PHOTO, BLAZEKIT_ERROR_MODEL, NULL);
    WITH(model_asset_path, "Tests/C/not-a-bundle.task", BLAZEKIT_ERROR_MODEL, "not-a-bundle.task");
    /* A .tflite landmark model is converted during create: one the converter refuses is named, and its
     * temporary files are gone (ctest.sh checks TMPDIR). */
    WITH(model_asset_path, "Tools/fuzzing/corpus/tflite/unsupported.tflite", BLAZEKIT_ERROR_MODEL, "unsupported.tflite: cannot be converted");
    WITH(model_asset_buffer_size, 100, BLAZEKIT_ERROR_INVALID_OPTION, "model_asset_buffer");
    WITH(model_asset_buffer, "x", BLAZEKIT_ERROR_INVALID_OPTION, "model_asset_buffer_size");
    static const char garbage[64] = "definitely not a model";
    blazekit_pose_landmarker_options_init(&o);
    o.model_asset_buffer = garbage;
    o.model_asset_buffer_size = sizeof garbage;
    CHECK_STATUS(blazekit_pose_landmarker_create(&o, &lm), BLAZEKIT_ERROR_MODEL, "<model_asset_buffer>");
    static const char zip[64] = "PK\x03\x04 not really a zip";
    o.model_asset_buffer = zip;
    CHECK_STATUS(blazekit_pose_landmarker_create(&o, &lm), BLAZEKIT_ERROR_MODEL, "<model_asset_buffer>");
    CHECK(strstr(blazekit_last_error_message(), "blazekit-model-") == NULL, "no temp name: %s", blazekit_last_error_message());
    /* The accurate mode's fields, checked only when it is on. */
    blazekit_pose_landmarker_options_init(&o);
    o.accurate_mode = 1; o.accurate_min_person_height = 31;
    CHECK_STATUS(blazekit_pose_landmarker_create(&o, &lm), BLAZEKIT_ERROR_INVALID_OPTION, "accurate_min_person_height");
    CHECK(contains(blazekit_last_error_message(), ">= 32") && contains(blazekit_last_error_message(), "31"), "%s", blazekit_last_error_message());
    blazekit_pose_landmarker_options_init(&o);
    o.accurate_mode = 1; o.accurate_off = "tiles,everything";
    CHECK_STATUS(blazekit_pose_landmarker_create(&o, &lm), BLAZEKIT_ERROR_INVALID_OPTION, "accurate_off");
    CHECK(contains(blazekit_last_error_message(), "zoom-in") && contains(blazekit_last_error_message(), "tiles,everything"),
          "%s", blazekit_last_error_message());
    CHECK(lm == NULL, "no handle");
#undef WITH
    blazekit_hand_landmarker_options h;
    blazekit_hand_landmarker *hm = NULL;
    blazekit_hand_landmarker_options_init(&h);
    h.num_hands = 0;
    CHECK_STATUS(blazekit_hand_landmarker_create(&h, &hm), BLAZEKIT_ERROR_INVALID_OPTION, "num_hands");
    blazekit_hand_landmarker_options_init(&h);
    h.min_hand_presence_confidence = 2;
    CHECK_STATUS(blazekit_hand_landmarker_create(&h, &hm), BLAZEKIT_ERROR_INVALID_OPTION, "min_hand_presence_confidence");
    blazekit_hand_landmarker_options_init(&h);
    h.result_callback = dummy_hand_cb;
    CHECK_STATUS(blazekit_hand_landmarker_create(&h, &hm), BLAZEKIT_ERROR_INVALID_OPTION, "result_callback");
    blazekit_hand_landmarker_options_init(&h);
    h.running_mode = BLAZEKIT_RUNNING_MODE_LIVE_STREAM;
    CHECK_STATUS(blazekit_hand_landmarker_create(&h, &hm), BLAZEKIT_ERROR_INVALID_OPTION, "result_callback");
    blazekit_hand_landmarker_options_init(&h);
    h.model_asset_path = "/nonexistent/hand_landmarker.task";
    CHECK_STATUS(blazekit_hand_landmarker_create(&h, &hm), BLAZEKIT_ERROR_MODEL, "/nonexistent/hand_landmarker.task");
    blazekit_hand_landmarker_options_init(&h);
    h.accurate_mode = 1; h.accurate_min_hand_size = 0;
    CHECK_STATUS(blazekit_hand_landmarker_create(&h, &hm), BLAZEKIT_ERROR_INVALID_OPTION, "accurate_min_hand_size");
    blazekit_hand_landmarker_options_init(&h);
    h.accurate_mode = 1; h.accurate_on = "zoom-out";
    CHECK_STATUS(blazekit_hand_landmarker_create(&h, &hm), BLAZEKIT_ERROR_INVALID_OPTION, "accurate_on");
    blazekit_hand_landmarker_options_init(&h);
    h.accurate_mode = 1; h.accurate_off = "refine,flip,x";
    CHECK_STATUS(blazekit_hand_landmarker_create(&h, &hm), BLAZEKIT_ERROR_INVALID_OPTION, "accurate_off");
    CHECK_STATUS(blazekit_hand_landmarker_create(NULL, &hm), BLAZEKIT_ERROR_INVALID_ARGUMENT, "options is NULL");
    CHECK_STATUS(blazekit_hand_landmarker_create(&h, NULL), BLAZEKIT_ERROR_INVALID_ARGUMENT, "out is NULL");
    CHECK(hm == NULL, "no handle");
}

/* The same photo through the built-ins, a model directory, a .bkm path, a .bkm buffer and an older,
 * shorter options struct: the same result, bit for bit. */
static void test_model_sources(void) {
    current = "model_sources";
    photo p = load(POSE_PHOTO);
    blazekit_image image = rgb_image(&p);
    blazekit_pose_landmarker *base = make_pose(BLAZEKIT_RUNNING_MODE_IMAGE, NULL, NULL, 0);
    blazekit_pose_result *want = NULL;
    CHECK_STATUS(blazekit_pose_landmarker_detect(base, &image, &want), BLAZEKIT_OK, NULL);
    CHECK(want && want->pose_count == 1, "one pose");
    blazekit_pose_landmarker_destroy(base);

    size_t size = 0;
    uint8_t *bkm = read_file(POSE_MODEL_DIR "/pose_landmark_full.bkm", &size);
    CHECK(bkm != NULL, "read the built-in model file");
    for (int variant = 0; variant < 4; variant++) {
        blazekit_pose_landmarker_options o;
        blazekit_pose_landmarker_options_init(&o);
        if (variant == 0) o.model_asset_path = POSE_MODEL_DIR;
        if (variant == 1) o.model_asset_path = POSE_MODEL_DIR "/pose_landmark_full.bkm";
        if (variant == 2) { o.model_asset_buffer = bkm; o.model_asset_buffer_size = size; }
        if (variant == 3) { o.struct_size = offsetof(blazekit_pose_landmarker_options, min_pose_detection_confidence); o.num_poses = 1; }
        blazekit_pose_landmarker *lm = NULL;
        CHECK_STATUS(blazekit_pose_landmarker_create(&o, &lm), BLAZEKIT_OK, NULL);
        if (!lm) continue;
        blazekit_pose_result *got = NULL;
        CHECK_STATUS(blazekit_pose_landmarker_detect(lm, &image, &got), BLAZEKIT_OK, NULL);
        CHECK(got && want && same_pose(got, want), "variant %d gives the same landmarks", variant);
        blazekit_pose_result_free(got);
        blazekit_pose_landmarker_destroy(lm);
    }
    free(bkm);
    blazekit_pose_result_free(want);
    free(p.rgb);
}

static void test_image_errors(void) {
    current = "image_errors";
    photo p = load(POSE_PHOTO);
    blazekit_pose_landmarker *lm = make_pose(BLAZEKIT_RUNNING_MODE_IMAGE, NULL, NULL, 0);
    blazekit_pose_result *r = (blazekit_pose_result *)0x1;
    blazekit_image good = rgb_image(&p), im;
    CHECK_STATUS(blazekit_pose_landmarker_detect(NULL, &good, &r), BLAZEKIT_ERROR_INVALID_ARGUMENT, "landmarker is NULL");
    CHECK_STATUS(blazekit_pose_landmarker_detect(lm, NULL, &r), BLAZEKIT_ERROR_INVALID_ARGUMENT, "image is NULL");
    CHECK(r == NULL, "out cleared");
    CHECK_STATUS(blazekit_pose_landmarker_detect(lm, &good, NULL), BLAZEKIT_ERROR_INVALID_ARGUMENT, "out is NULL");
#define BAD(field, value, needle) do { \
        im = good; im.field = value; r = NULL; \
        CHECK_STATUS(blazekit_pose_landmarker_detect(lm, &im, &r), BLAZEKIT_ERROR_INVALID_ARGUMENT, needle); \
        CHECK(r == NULL, "no result"); \
    } while (0)
    BAD(struct_size, 0, "struct_size");
    BAD(struct_size, 4, "struct_size");
    BAD(struct_size, 1 << 20, "struct_size");
    BAD(width, 0, "width");
    BAD(width, -3, "width");
    BAD(width, 16385, "width");
    BAD(height, 0, "height");
    BAD(height, INT32_MIN, "height");
    BAD(pixels, NULL, "pixels is NULL");
    BAD(byte_count, 0, "byte_count");
    BAD(byte_count, good.byte_count - 1, "byte_count");
    BAD(bytes_per_row, good.bytes_per_row - 1, "bytes_per_row");
    BAD(bytes_per_row, (size_t)-1, "bytes_per_row");
    BAD(bytes_per_row, (size_t)1 << 40, "bytes_per_row");
    BAD(format, 4, "format");
    BAD(format, -1, "format");
    BAD(orientation, 8, "orientation");
    BAD(orientation, BLAZEKIT_ORIENTATION_UP_MIRRORED, "UP_MIRRORED");
    BAD(orientation, BLAZEKIT_ORIENTATION_RIGHT_MIRRORED, "RIGHT_MIRRORED");
    im = good; im.width = 16384; im.height = 16384; im.byte_count = (size_t)-1;
    CHECK_STATUS(blazekit_pose_landmarker_detect(lm, &im, &r), BLAZEKIT_ERROR_INVALID_ARGUMENT, "pixels");
#undef BAD
    blazekit_pose_landmarker_destroy(lm);
    free(p.rgb);
}

/* The same pixels as RGB, padded RGB, RGBA and BGRA give the same landmarks, bit for bit; gray runs. */
static void test_pixel_formats(void) {
    current = "pixel_formats";
    photo p = load(POSE_PHOTO);
    blazekit_pose_landmarker *lm = make_pose(BLAZEKIT_RUNNING_MODE_IMAGE, NULL, NULL, 0);
    blazekit_image image = rgb_image(&p);
    blazekit_pose_result *want = NULL, *got = NULL;
    CHECK_STATUS(blazekit_pose_landmarker_detect(lm, &image, &want), BLAZEKIT_OK, NULL);
    size_t n = (size_t)p.w * p.h;
    size_t stride = (size_t)p.w * 3 + 13;
    uint8_t *padded = calloc(stride * p.h, 1), *rgba = malloc(n * 4), *bgra = malloc(n * 4), *gray = malloc(n);
    for (int y = 0; y < p.h; y++) memcpy(padded + y * stride, p.rgb + (size_t)y * p.w * 3, (size_t)p.w * 3);
    for (size_t i = 0; i < n; i++) {
        uint8_t r = p.rgb[3 * i], g = p.rgb[3 * i + 1], b = p.rgb[3 * i + 2];
        rgba[4 * i] = r; rgba[4 * i + 1] = g; rgba[4 * i + 2] = b; rgba[4 * i + 3] = 77;
        bgra[4 * i] = b; bgra[4 * i + 1] = g; bgra[4 * i + 2] = r; bgra[4 * i + 3] = 200;
        gray[i] = g;
    }
    struct { const char *name; const void *pixels; size_t count, stride; int format; } cases[] = {
        {"padded RGB", padded, stride * p.h - 13, stride, BLAZEKIT_PIXEL_FORMAT_RGB},
        {"RGBA", rgba, n * 4, 0, BLAZEKIT_PIXEL_FORMAT_RGBA},
        {"BGRA", bgra, n * 4, (size_t)p.w * 4, BLAZEKIT_PIXEL_FORMAT_BGRA},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        blazekit_image im;
        blazekit_image_init(&im, cases[c].pixels, cases[c].count, p.w, p.h, cases[c].format);
        if (cases[c].stride) im.bytes_per_row = cases[c].stride;
        got = NULL;
        CHECK_STATUS(blazekit_pose_landmarker_detect(lm, &im, &got), BLAZEKIT_OK, NULL);
        CHECK(got && want && same_pose(got, want), "%s gives RGB's landmarks", cases[c].name);
        blazekit_pose_result_free(got);
    }
    blazekit_image im;
    blazekit_image_init(&im, gray, n, p.w, p.h, BLAZEKIT_PIXEL_FORMAT_GRAY);
    got = NULL;
    CHECK_STATUS(blazekit_pose_landmarker_detect(lm, &im, &got), BLAZEKIT_OK, NULL);
    blazekit_pose_result_free(got);
    /* Orientation: the photo stored rotated 180° with orientation DOWN displays as the original. */
    uint8_t *rotated = malloc(n * 3);
    for (size_t i = 0; i < n; i++) memcpy(rotated + 3 * (n - 1 - i), p.rgb + 3 * i, 3);
    blazekit_image_init(&im, rotated, n * 3, p.w, p.h, BLAZEKIT_PIXEL_FORMAT_RGB);
    im.orientation = BLAZEKIT_ORIENTATION_DOWN;
    got = NULL;
    CHECK_STATUS(blazekit_pose_landmarker_detect(lm, &im, &got), BLAZEKIT_OK, NULL);
    CHECK(got && want && same_pose(got, want), "DOWN of the rotated photo gives the upright photo's landmarks");
    blazekit_pose_result_free(got);
    free(rotated); free(padded); free(rgba); free(bgra); free(gray);
    blazekit_pose_result_free(want);
    blazekit_pose_landmarker_destroy(lm);
    free(p.rgb);
}

static void test_pose_image(void) {
    current = "pose_image";
    photo p = load(POSE_PHOTO);
    blazekit_pose_landmarker *lm = make_pose(BLAZEKIT_RUNNING_MODE_IMAGE, NULL, NULL, 1);
    blazekit_image image = rgb_image(&p);
    blazekit_pose_result *r = NULL;
    CHECK_STATUS(blazekit_pose_landmarker_detect(lm, &image, &r), BLAZEKIT_OK, NULL);
    if (r) {
        CHECK(r->struct_size == sizeof *r && r->timestamp_ms == 0, "");
        CHECK(r->pose_count == 1 && r->landmarks_per_pose == 33, "%zu poses of %zu", r->pose_count, r->landmarks_per_pose);
        CHECK(r->mask_count == 1, "%zu masks", r->mask_count);
        CHECK(r->ids == NULL, "no IDs in IMAGE mode");
        int inside = 1;
        for (size_t i = 0; i < r->pose_count * 33; i++) {
            const blazekit_landmark *l = &r->landmarks[i];
            if (!(l->x > -1 && l->x < 2 && l->y > -1 && l->y < 2)) inside = 0;
            if ((l->flags & 3) != 3 || !(l->visibility >= 0 && l->visibility <= 1) || !(l->presence >= 0 && l->presence <= 1)) inside = 0;
            if (!isfinite(r->world_landmarks[i].x) || fabsf(r->world_landmarks[i].x) > 3) inside = 0;
        }
        CHECK(inside, "landmarks, visibility, presence and world landmarks in range");
        if (r->mask_count == 1) {
            const blazekit_mask *m = &r->segmentation_masks[0];
            CHECK(m->width == p.w && m->height == p.h && m->data, "mask %dx%d", m->width, m->height);
            double sum = 0;
            for (size_t i = 0; i < (size_t)p.w * p.h; i++) sum += m->data[i];
            CHECK(sum > 100, "mask covers someone (%f)", sum);
        }
    }
    blazekit_pose_result_free(r);
    blazekit_pose_result_free(NULL);
    CHECK_IMAGE_MODE_THEN_CLOSED(pose, lm, &image);
    blazekit_pose_landmarker_destroy(lm);
    blazekit_pose_landmarker_destroy(NULL);
    free(p.rgb);
}

static void test_pose_video(void) {
    current = "pose_video";
    photo p = load(POSE_PHOTO);
    blazekit_pose_landmarker *lm = make_pose(BLAZEKIT_RUNNING_MODE_VIDEO, NULL, NULL, 0);
    blazekit_image image = rgb_image(&p);
    blazekit_pose_result *r = NULL;
    for (int64_t t = 0; t < 200; t += 40) {
        CHECK_STATUS(blazekit_pose_landmarker_detect_for_video(lm, &image, t, &r), BLAZEKIT_OK, NULL);
        CHECK(r && r->timestamp_ms == t && r->pose_count == 1, "frame %lld", (long long)t);
        CHECK(r && r->ids && r->ids[0] == 1, "frame %lld: the person keeps ID 1", (long long)t);
        blazekit_pose_result_free(r);
        r = NULL;
    }
    CHECK_STATUS(blazekit_pose_landmarker_detect_for_video(lm, &image, 160, &r), BLAZEKIT_ERROR_TIMESTAMP, "160");
    CHECK(r == NULL, "no result");
    CHECK_STATUS(blazekit_pose_landmarker_detect_for_video(lm, &image, -7, &r), BLAZEKIT_ERROR_TIMESTAMP, "-7");
    CHECK_STATUS(blazekit_pose_landmarker_detect_for_video(lm, &image, 161, &r), BLAZEKIT_OK, NULL);
    blazekit_pose_result_free(r);
    CHECK_VIDEO_MODE_MISUSE(pose, lm, &image);
    blazekit_pose_landmarker_destroy(lm);
    free(p.rgb);
}

typedef struct {
    pthread_mutex_t lock;
    pthread_t caller;
    int calls, errors, on_caller_thread, ordered, poses;
    int64_t last;
    int close_in_callback;
    blazekit_pose_landmarker *self;
} live_state;

static void pose_live_cb(void *user, int32_t status, const char *message, const blazekit_pose_result *r, int64_t t) {
    live_state *s = user;
    pthread_mutex_lock(&s->lock);
    s->calls++;
    if (status != BLAZEKIT_OK || !r || message) s->errors++;
    if (pthread_equal(pthread_self(), s->caller)) s->on_caller_thread++;
    if (t <= s->last) s->ordered = 0;
    if (r && r->timestamp_ms != t) s->ordered = 0;
    if (r) s->poses += (int)r->pose_count;
    s->last = t;
    int close_now = s->close_in_callback;
    pthread_mutex_unlock(&s->lock);
    if (close_now == 1) blazekit_pose_landmarker_close(s->self);
    if (close_now == 2) {
        s->close_in_callback = 0;
        blazekit_pose_landmarker_destroy(s->self);   /* allowed: the handle is freed, this call finishes */
        s->self = NULL;
    }
}

static void test_pose_live_stream(void) {
    current = "pose_live_stream";
    photo p = load(POSE_PHOTO);
    live_state s = {PTHREAD_MUTEX_INITIALIZER, pthread_self(), 0, 0, 0, 1, 0, -1, 0, NULL};
    blazekit_pose_landmarker *lm = make_pose(BLAZEKIT_RUNNING_MODE_LIVE_STREAM, pose_live_cb, &s, 0);
    blazekit_image image = rgb_image(&p);
    for (int64_t t = 0; t < 10; t++) {
        CHECK_STATUS(blazekit_pose_landmarker_detect_async(lm, &image, t * 33), BLAZEKIT_OK, NULL);
        usleep(20000);
    }
    CHECK_STATUS(blazekit_pose_landmarker_detect_async(lm, &image, 297), BLAZEKIT_ERROR_TIMESTAMP, "297");
    blazekit_pose_result *r = NULL;
    CHECK_STATUS(blazekit_pose_landmarker_detect(lm, &image, &r), BLAZEKIT_ERROR_RUNNING_MODE, "IMAGE");
    CHECK_STATUS(blazekit_pose_landmarker_detect_for_video(lm, &image, 10000, &r), BLAZEKIT_ERROR_RUNNING_MODE, "VIDEO");
    CHECK_STATUS(blazekit_pose_landmarker_detect_async(lm, NULL, 10000), BLAZEKIT_ERROR_INVALID_ARGUMENT, "image is NULL");
    CHECK_STATUS(blazekit_pose_landmarker_detect_async(NULL, &image, 10000), BLAZEKIT_ERROR_INVALID_ARGUMENT, "NULL");
    /* The last frame is processed before close returns or dropped; after close no callback comes. */
    for (int i = 0; i < 100; i++) {
        pthread_mutex_lock(&s.lock);
        int done = s.last == 297;
        pthread_mutex_unlock(&s.lock);
        if (done) break;
        usleep(20000);
    }
    CHECK_STATUS(blazekit_pose_landmarker_close(lm), BLAZEKIT_OK, NULL);
    pthread_mutex_lock(&s.lock);
    int calls = s.calls;
    CHECK(s.calls >= 2 && s.calls <= 10, "%d callbacks", s.calls);
    CHECK(s.errors == 0, "%d errors", s.errors);
    CHECK(s.on_caller_thread == 0, "callbacks on the library's thread");
    CHECK(s.ordered, "timestamps in order");
    CHECK(s.poses == s.calls, "one pose per frame (%d in %d)", s.poses, s.calls);
    CHECK(s.last == 297, "the last frame was delivered (%lld)", (long long)s.last);
    pthread_mutex_unlock(&s.lock);
    usleep(100000);
    CHECK(s.calls == calls, "no callback after close");
    CHECK_STATUS(blazekit_pose_landmarker_detect_async(lm, &image, 100000), BLAZEKIT_ERROR_CLOSED, "closed");
    blazekit_pose_landmarker_destroy(lm);

    /* Close from inside the callback; destroy while frames are queued. */
    live_state s2 = {PTHREAD_MUTEX_INITIALIZER, pthread_self(), 0, 0, 0, 1, 0, -1, 1, NULL};
    lm = make_pose(BLAZEKIT_RUNNING_MODE_LIVE_STREAM, pose_live_cb, &s2, 0);
    s2.self = lm;
    CHECK_STATUS(blazekit_pose_landmarker_detect_async(lm, &image, 1), BLAZEKIT_OK, NULL);
    int closed = 0;
    for (int i = 0; i < 200 && !closed; i++) {
        usleep(10000);
        closed = blazekit_pose_landmarker_detect_async(lm, &image, 2 + i) == BLAZEKIT_ERROR_CLOSED;
    }
    CHECK(closed, "the callback closed its landmarker");
    CHECK(s2.calls >= 1, "%d calls", s2.calls);
    blazekit_pose_landmarker_destroy(lm);
    /* Destroy from inside the callback. */
    live_state s4 = {PTHREAD_MUTEX_INITIALIZER, pthread_self(), 0, 0, 0, 1, 0, -1, 2, NULL};
    lm = make_pose(BLAZEKIT_RUNNING_MODE_LIVE_STREAM, pose_live_cb, &s4, 0);
    s4.self = lm;
    CHECK_STATUS(blazekit_pose_landmarker_detect_async(lm, &image, 1), BLAZEKIT_OK, NULL);
    for (int i = 0; i < 300 && s4.self; i++) usleep(10000);
    CHECK(s4.self == NULL && s4.calls == 1, "the callback destroyed its landmarker (%d calls)", s4.calls);
    usleep(50000);
    live_state s3 = {PTHREAD_MUTEX_INITIALIZER, pthread_self(), 0, 0, 0, 1, 0, -1, 0, NULL};
    lm = make_pose(BLAZEKIT_RUNNING_MODE_LIVE_STREAM, pose_live_cb, &s3, 0);
    for (int t = 1; t <= 3; t++) blazekit_pose_landmarker_detect_async(lm, &image, t);
    blazekit_pose_landmarker_destroy(lm);
    int after = s3.calls;
    usleep(100000);
    CHECK(s3.calls == after && after <= 3, "no callback after destroy (%d, %d)", after, s3.calls);
    free(p.rgb);
}

static void test_hand_image(void) {
    current = "hand_image";
    photo p = load(HAND_PHOTO);
    blazekit_hand_landmarker *lm = make_hand(BLAZEKIT_RUNNING_MODE_IMAGE, NULL, NULL);
    blazekit_image image = rgb_image(&p);
    blazekit_hand_result *r = NULL;
    CHECK_STATUS(blazekit_hand_landmarker_detect(lm, &image, &r), BLAZEKIT_OK, NULL);
    if (r) {
        CHECK(r->struct_size == sizeof *r && r->hand_count >= 1 && r->landmarks_per_hand == 21, "%zu hands", r->hand_count);
        for (size_t i = 0; i < r->hand_count; i++) {
            const blazekit_category *c = &r->handedness[i];
            CHECK((strcmp(c->category_name, "Left") == 0 && c->index == 1) || (strcmp(c->category_name, "Right") == 0 && c->index == 0),
                  "%s %d", c->category_name, c->index);
            CHECK(strcmp(c->category_name, c->display_name) == 0 && c->score > 0.5f && c->score <= 1, "%f", c->score);
            CHECK((r->landmarks[i * 21].flags & BLAZEKIT_LANDMARK_HAS_PRESENCE) != 0, "presence set");
        }
    }
    blazekit_hand_result *again = NULL;
    CHECK_STATUS(blazekit_hand_landmarker_detect(lm, &image, &again), BLAZEKIT_OK, NULL);
    CHECK(r && again && same_hand(r, again), "the same photo twice gives the same hands");
    blazekit_hand_result_free(again);
    blazekit_hand_result_free(r);
    blazekit_hand_result_free(NULL);
    r = NULL;
    blazekit_image bad = image;
    bad.bytes_per_row = 1;
    CHECK_STATUS(blazekit_hand_landmarker_detect(lm, &bad, &r), BLAZEKIT_ERROR_INVALID_ARGUMENT, "bytes_per_row");
    CHECK_IMAGE_MODE_THEN_CLOSED(hand, lm, &image);
    blazekit_hand_landmarker_destroy(lm);
    blazekit_hand_landmarker_destroy(NULL);
    free(p.rgb);
}

static void test_hand_video(void) {
    current = "hand_video";
    photo p = load(HAND_PHOTO);
    blazekit_hand_landmarker *lm = make_hand(BLAZEKIT_RUNNING_MODE_VIDEO, NULL, NULL);
    blazekit_image image = rgb_image(&p);
    blazekit_hand_result *r = NULL;
    for (int64_t t = 100; t < 300; t += 33) {
        CHECK_STATUS(blazekit_hand_landmarker_detect_for_video(lm, &image, t, &r), BLAZEKIT_OK, NULL);
        CHECK(r && r->timestamp_ms == t && r->hand_count >= 1, "frame %lld", (long long)t);
        CHECK(r && r->ids && r->ids[0] == 1, "frame %lld: the hand keeps ID 1", (long long)t);
        blazekit_hand_result_free(r);
        r = NULL;
    }
    CHECK_STATUS(blazekit_hand_landmarker_detect_for_video(lm, &image, 100, &r), BLAZEKIT_ERROR_TIMESTAMP, "100");
    CHECK_VIDEO_MODE_MISUSE(hand, lm, &image);
    blazekit_hand_landmarker_destroy(lm);
    free(p.rgb);
}

typedef struct { pthread_mutex_t lock; int calls, hands, errors; int64_t last; } hand_live_state;

static void hand_live_cb(void *user, int32_t status, const char *message, const blazekit_hand_result *r, int64_t t) {
    hand_live_state *s = user;
    pthread_mutex_lock(&s->lock);
    s->calls++;
    if (status != BLAZEKIT_OK || !r || message || t <= s->last) s->errors++;
    if (r) s->hands += r->hand_count > 0;
    s->last = t;
    pthread_mutex_unlock(&s->lock);
}

static void test_hand_live_stream(void) {
    current = "hand_live_stream";
    photo p = load(HAND_PHOTO);
    hand_live_state s = {PTHREAD_MUTEX_INITIALIZER, 0, 0, 0, -1};
    blazekit_hand_landmarker *lm = make_hand(BLAZEKIT_RUNNING_MODE_LIVE_STREAM, hand_live_cb, &s);
    blazekit_image image = rgb_image(&p);
    for (int64_t t = 1; t <= 5; t++) {
        CHECK_STATUS(blazekit_hand_landmarker_detect_async(lm, &image, t), BLAZEKIT_OK, NULL);
        usleep(30000);
    }
    CHECK_STATUS(blazekit_hand_landmarker_detect_async(lm, &image, 5), BLAZEKIT_ERROR_TIMESTAMP, "5");
    blazekit_hand_result *r = NULL;
    CHECK_STATUS(blazekit_hand_landmarker_detect(lm, &image, &r), BLAZEKIT_ERROR_RUNNING_MODE, "IMAGE");
    CHECK_STATUS(blazekit_hand_landmarker_detect_for_video(lm, &image, 6, &r), BLAZEKIT_ERROR_RUNNING_MODE, "VIDEO");
    CHECK_STATUS(blazekit_hand_landmarker_detect_async(NULL, &image, 6), BLAZEKIT_ERROR_INVALID_ARGUMENT, "NULL");
    for (int i = 0; i < 100 && s.last != 5; i++) usleep(20000);
    CHECK_STATUS(blazekit_hand_landmarker_close(lm), BLAZEKIT_OK, NULL);
    CHECK(s.calls >= 1 && s.errors == 0 && s.hands == s.calls && s.last == 5, "%d calls, %d errors, %d with hands, last %lld",
          s.calls, s.errors, s.hands, (long long)s.last);
    blazekit_hand_landmarker_destroy(lm);
    free(p.rgb);
}

/* A photo halved (2×2 box average, rounded) and pasted at (x0, y0) into a flat grey 1920×1080 frame: people
 * too small for MediaPipe's whole-frame detectors, as BlazeKit's Swift tests make them (pastedHalved). */
static uint8_t *pasted_halved(const photo *p, int x0, int y0) {
    const int w = 1920, h = 1080;
    uint8_t *frame = malloc((size_t)w * h * 3);
    memset(frame, 128, (size_t)w * h * 3);
    for (int y = 0; y < p->h / 2; y++)
        for (int x = 0; x < p->w / 2; x++)
            for (int c = 0; c < 3; c++) {
                int sum = 2;
                for (int dy = 0; dy < 2; dy++)
                    for (int dx = 0; dx < 2; dx++) sum += p->rgb[((size_t)(2 * y + dy) * p->w + 2 * x + dx) * 3 + c];
                frame[((size_t)(y0 + y) * w + x0 + x) * 3 + c] = (uint8_t)(sum / 4);
            }
    return frame;
}

/* The accurate modes through the C options: the default finds no one in a wide frame with small people, the
 * accurate mode finds them; an older struct (without the accurate fields) keeps MediaPipe's behaviour. */
static void test_accurate_mode(void) {
    current = "accurate_mode";
    photo p = load(POSE_PHOTO);
    uint8_t *frame = pasted_halved(&p, 1200, 600);
    blazekit_image image;
    blazekit_image_init(&image, frame, (size_t)1920 * 1080 * 3, 1920, 1080, BLAZEKIT_PIXEL_FORMAT_RGB);
    for (int variant = 0; variant < 3; variant++) {
        blazekit_pose_landmarker_options o;
        blazekit_pose_landmarker_options_init(&o);
        o.num_poses = 3;
        if (variant > 0) o.accurate_mode = 1;
        if (variant == 2) o.struct_size = offsetof(blazekit_pose_landmarker_options, accurate_mode);
        blazekit_pose_landmarker *lm = NULL;
        CHECK_STATUS(blazekit_pose_landmarker_create(&o, &lm), BLAZEKIT_OK, NULL);
        blazekit_pose_result *r = NULL;
        CHECK_STATUS(blazekit_pose_landmarker_detect(lm, &image, &r), BLAZEKIT_OK, NULL);
        size_t want = variant == 1 ? 2 : 0;   /* both seated men, only in the accurate mode */
        CHECK(r && r->pose_count == want, "variant %d: %zu poses, expected %zu", variant, r ? r->pose_count : 0, want);
        blazekit_pose_result_free(r);
        blazekit_pose_landmarker_destroy(lm);
    }
    free(frame);
    free(p.rgb);
    photo hp = load("Tests/BlazeKitTests/Fixtures/hand/onehand10k_1402.png");
    frame = pasted_halved(&hp, 1300, 700);
    blazekit_image_init(&image, frame, (size_t)1920 * 1080 * 3, 1920, 1080, BLAZEKIT_PIXEL_FORMAT_RGB);
    for (int variant = 0; variant < 2; variant++) {
        blazekit_hand_landmarker_options o;
        blazekit_hand_landmarker_options_init(&o);
        o.accurate_mode = variant;
        o.accurate_off = "";
        blazekit_hand_landmarker *lm = NULL;
        CHECK_STATUS(blazekit_hand_landmarker_create(&o, &lm), BLAZEKIT_OK, NULL);
        blazekit_hand_result *r = NULL;
        CHECK_STATUS(blazekit_hand_landmarker_detect(lm, &image, &r), BLAZEKIT_OK, NULL);
        CHECK(r && r->hand_count == (size_t)variant, "hand variant %d: %zu hands", variant, r ? r->hand_count : 0);
        blazekit_hand_result_free(r);
        blazekit_hand_landmarker_destroy(lm);
    }
    free(frame);
    free(hp.rgb);
}

/* fixed_plan (since 0.6): kernels planned by fixed rules give the bits of the timed plan, at 1 and 2 threads; a
 * struct_size ending before the field gets the default (timed). */
static void test_fixed_plan(void) {
    current = "fixed_plan";
    photo pp = load(POSE_PHOTO), hp = load(HAND_PHOTO);
    blazekit_image pose_image = rgb_image(&pp), hand_image = rgb_image(&hp);
    for (int threads = 1; threads <= 2; threads++) {
        blazekit_pose_result *pose[3] = {NULL, NULL, NULL};
        blazekit_hand_result *hand[3] = {NULL, NULL, NULL};
        for (int variant = 0; variant < 3; variant++) {   /* timed, fixed, fixed_plan set but left out by struct_size */
            blazekit_pose_landmarker_options o;
            blazekit_pose_landmarker_options_init(&o);
            o.num_poses = 2;
            o.output_segmentation_masks = 1;
            DETECT_WITH_PLAN(pose, o, threads, variant, &pose_image, &pose[variant]);
            blazekit_hand_landmarker_options h;
            blazekit_hand_landmarker_options_init(&h);
            h.num_hands = 2;
            DETECT_WITH_PLAN(hand, h, threads, variant, &hand_image, &hand[variant]);
        }
        CHECK(pose[0] && pose[0]->pose_count >= 1 && pose[0]->mask_count == pose[0]->pose_count, "%d threads: a pose and its mask", threads);
        CHECK(hand[0] && hand[0]->hand_count == 2, "%d threads: two hands", threads);
        for (int variant = 1; variant < 3; variant++) {
            CHECK(pose[0] && pose[variant] && same_pose_and_masks(pose[0], pose[variant]), "%d threads, variant %d: pose bits", threads, variant);
            CHECK(hand[0] && hand[variant] && same_hand(hand[0], hand[variant]), "%d threads, variant %d: hand bits", threads, variant);
        }
        for (int variant = 0; variant < 3; variant++) {
            blazekit_pose_result_free(pose[variant]);
            blazekit_hand_result_free(hand[variant]);
        }
    }
    free(pp.rgb);
    free(hp.rgb);
}

/* Files in `dir` (not . or ..), removed when `remove_them`; -1 when it cannot be opened. */
static int plan_files(const char *dir, int remove_them) {
    DIR *d = opendir(dir);
    if (!d) return -1;
    int n = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        n++;
        if (remove_them) {
            char path[1024];
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            unlink(path);
        }
    }
    closedir(d);
    return n;
}

/* plan_cache_dir (since 0.7): the first create fills the directory (made if missing), the second plans from it;
 * both give the bits of a landmarker without it. Refused, naming the field: beside fixed_plan, empty, or a
 * directory that cannot be made. A struct_size ending before the field leaves it out. */
static void test_plan_cache(void) {
    current = "plan_cache";
    char root[] = "/tmp/blazekit-plans-XXXXXX";
    CHECK(mkdtemp(root) != NULL, "mkdtemp");
    char dir[64], file[64], blocked[96];
    snprintf(dir, sizeof dir, "%s/plans", root);
    snprintf(file, sizeof file, "%s/a-file", root);
    snprintf(blocked, sizeof blocked, "%s/plans", file);
    FILE *f = fopen(file, "w");
    CHECK(f != NULL, "%s", file);
    if (f) fclose(f);
    photo pp = load(POSE_PHOTO);
    blazekit_image image = rgb_image(&pp);
    blazekit_pose_result *r[4] = {NULL, NULL, NULL, NULL};
    int stored = 0;
    for (int variant = 0; variant < 4; variant++) {   /* none, first, second, left out by struct_size */
        blazekit_pose_landmarker_options o;
        blazekit_pose_landmarker_options_init(&o);
        CHECK(o.plan_cache_dir == NULL, "default NULL");
        o.num_poses = 2;
        o.thread_count = 2;
        if (variant > 0) o.plan_cache_dir = variant == 3 ? "" : dir;
        if (variant == 3) o.struct_size = offsetof(blazekit_pose_landmarker_options, plan_cache_dir);
        blazekit_pose_landmarker *lm = NULL;
        CHECK_STATUS(blazekit_pose_landmarker_create(&o, &lm), BLAZEKIT_OK, NULL);
        CHECK_STATUS(blazekit_pose_landmarker_detect(lm, &image, &r[variant]), BLAZEKIT_OK, NULL);
        blazekit_pose_landmarker_destroy(lm);
        if (variant == 1) stored = plan_files(dir, 0);
        if (variant == 2) CHECK(plan_files(dir, 0) == stored, "%d files after the second create, %d after the first", plan_files(dir, 0), stored);
    }
    CHECK(stored == 2, "%d plan files (pose detector and landmarks)", stored);
    for (int variant = 1; variant < 4; variant++) {
        CHECK(r[0] && r[variant] && same_pose_and_masks(r[0], r[variant]), "variant %d: pose bits", variant);
    }
    for (int variant = 0; variant < 4; variant++) blazekit_pose_result_free(r[variant]);
    CHECK_OPTION(pose, plan_cache_dir, "", BLAZEKIT_ERROR_INVALID_OPTION, "plan_cache_dir");
    CHECK_OPTION(hand, plan_cache_dir, "", BLAZEKIT_ERROR_INVALID_OPTION, "plan_cache_dir");
    const char *blocked_path = blocked;   /* a pointer, for the macros' NULL checks */
    CHECK_OPTION(holistic, plan_cache_dir, blocked_path, BLAZEKIT_ERROR_INVALID_OPTION, blocked_path);
    blazekit_hand_landmarker_options h;
    blazekit_hand_landmarker_options_init(&h);
    h.fixed_plan = 1;
    h.plan_cache_dir = dir;
    blazekit_hand_landmarker *hl = NULL;
    CHECK_STATUS(blazekit_hand_landmarker_create(&h, &hl), BLAZEKIT_ERROR_INVALID_OPTION, "plan_cache_dir");
    CHECK(hl == NULL, "no handle");
    plan_files(dir, 1);
    rmdir(dir);
    unlink(file);
    CHECK(rmdir(root) == 0, "%s left behind", root);
    free(pp.rgb);
}

static void test_decode_file(void) {
    current = "decode_file";
    uint8_t *px = (uint8_t *)0x1;
    int32_t w = 0, h = 0, o = -1;
    CHECK_STATUS(blazekit_image_decode_file(NULL, &px, &w, &h, &o), BLAZEKIT_ERROR_INVALID_ARGUMENT, "path is NULL");
    CHECK_STATUS(blazekit_image_decode_file(POSE_PHOTO, NULL, &w, &h, &o), BLAZEKIT_ERROR_INVALID_ARGUMENT, "pixels is NULL");
    CHECK_STATUS(blazekit_image_decode_file(POSE_PHOTO, &px, NULL, &h, &o), BLAZEKIT_ERROR_INVALID_ARGUMENT, "width is NULL");
    CHECK(px == NULL, "cleared");
    CHECK_STATUS(blazekit_image_decode_file("/nonexistent.png", &px, &w, &h, &o), BLAZEKIT_ERROR_INVALID_ARGUMENT, "/nonexistent.png");
    CHECK_STATUS(blazekit_image_decode_file("Tests/C/test_blazekit.c", &px, &w, &h, &o), BLAZEKIT_ERROR_INVALID_ARGUMENT, "test_blazekit.c");
    CHECK_STATUS(blazekit_image_decode_file(POSE_PHOTO, &px, &w, &h, NULL), BLAZEKIT_OK, NULL);
    CHECK(px && w > 0 && h > 0, "%dx%d", w, h);
    blazekit_pixels_free(px);
    blazekit_pixels_free(NULL);
    blazekit_image im;
    blazekit_image_init(&im, NULL, 0, 10, 10, BLAZEKIT_PIXEL_FORMAT_RGBA);
    CHECK(im.struct_size == sizeof im && im.bytes_per_row == 40 && im.orientation == 0, "");
    blazekit_image_init(NULL, NULL, 0, 0, 0, 0);
}

/* Two landmarkers on two threads give the results they give one at a time. */
typedef struct { const photo *p; blazekit_pose_result *r[4]; } thread_job;

static void *pose_thread(void *arg) {
    thread_job *job = arg;
    blazekit_pose_landmarker *lm = make_pose(BLAZEKIT_RUNNING_MODE_VIDEO, NULL, NULL, 0);
    blazekit_image image = rgb_image(job->p);
    for (int i = 0; i < 4; i++) blazekit_pose_landmarker_detect_for_video(lm, &image, i * 10, &job->r[i]);
    blazekit_pose_landmarker_destroy(lm);
    return NULL;
}

static void test_threads(void) {
    current = "threads";
    photo p = load(POSE_PHOTO);
    thread_job a = {&p, {0}}, b = {&p, {0}}, c = {&p, {0}};
    pose_thread(&a);
    pthread_t ta, tb;
    pthread_create(&ta, NULL, pose_thread, &b);
    pthread_create(&tb, NULL, pose_thread, &c);
    pthread_join(ta, NULL);
    pthread_join(tb, NULL);
    for (int i = 0; i < 4; i++) {
        CHECK(a.r[i] && b.r[i] && c.r[i] && same_pose(a.r[i], b.r[i]) && same_pose(a.r[i], c.r[i]), "frame %d", i);
        blazekit_pose_result_free(a.r[i]);
        blazekit_pose_result_free(b.r[i]);
        blazekit_pose_result_free(c.r[i]);
    }
    free(p.rgb);
}

/* The library must leave the host's process-wide state alone: environment, signal handlers, OpenBLAS's
 * thread count (BlazeKit tunes OpenBLAS only through ProcessTuning, which no library path calls). */
static void test_host_state(void) {
    current = "host_state";
    openblas_set_num_threads(2);
    int threads_before = openblas_get_num_threads();
    const char *coretype = getenv("OPENBLAS_CORETYPE");
    char *coretype_before = coretype ? strdup(coretype) : NULL;
    size_t env_before = 0;
    for (char **e = environ; *e; e++) env_before++;
    int sigs[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGPIPE, SIGINT, SIGTERM, SIGTRAP};
    struct sigaction before[9], after[9];
    for (int i = 0; i < 9; i++) sigaction(sigs[i], NULL, &before[i]);

    photo p = load(POSE_PHOTO);
    blazekit_image image = rgb_image(&p);
    blazekit_pose_landmarker *lm = make_pose(BLAZEKIT_RUNNING_MODE_IMAGE, NULL, NULL, 0);
    blazekit_pose_result *r = NULL;
    blazekit_pose_landmarker_detect(lm, &image, &r);
    blazekit_pose_result_free(r);
    blazekit_pose_landmarker_destroy(lm);
    free(p.rgb);

    size_t env_after = 0;
    for (char **e = environ; *e; e++) env_after++;
    CHECK(env_after == env_before, "environment has %zu variables, had %zu", env_after, env_before);
    coretype = getenv("OPENBLAS_CORETYPE");
    CHECK((coretype == NULL) == (coretype_before == NULL) && (!coretype || strcmp(coretype, coretype_before) == 0),
          "OPENBLAS_CORETYPE changed");
    free(coretype_before);
    int same_handlers = 1;
    for (int i = 0; i < 9; i++) {
        sigaction(sigs[i], NULL, &after[i]);
        if (after[i].sa_handler != before[i].sa_handler) { same_handlers = 0; printf("  signal %d handler changed\n", sigs[i]); }
    }
    CHECK(same_handlers, "signal handlers unchanged");
    int threads_after = openblas_get_num_threads();
    CHECK(threads_after == threads_before && threads_after == 2,
          "openblas_get_num_threads() is %d after create+detect, was %d", threads_after, threads_before);
}

/* Crash handlers found at the start of main, before any blazekit call: the host installed none, so any
 * there came with loading the library. KNOWN FAILURE: the Swift runtime's backtracer installs handlers for
 * SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT and SIGTRAP when libswiftCore initializes (SWIFT_BACKTRACE=enable=no
 * in the host's environment prevents it). Expected failure unless BLAZEKIT_STRICT_HOST_STATE=1. */
static void test_load_time_signal_handlers(const int installed[6]) {
    current = "load_time_signal_handlers";
    int strict = getenv("BLAZEKIT_STRICT_HOST_STATE") && strcmp(getenv("BLAZEKIT_STRICT_HOST_STATE"), "1") == 0;
    const char *backtrace = getenv("SWIFT_BACKTRACE");
    int any = 0;
    for (int i = 0; i < 6; i++) any |= installed[i];
    if (!any) passed++;
    else if (strict) { failed++; printf("FAIL load_time_signal_handlers: crash signal handlers installed when the library loaded\n"); }
    else {
        xfailed++;
        printf("XFAIL load_time_signal_handlers: crash signal handlers installed when the library loaded (the Swift runtime's "
               "backtracer; SWIFT_BACKTRACE=%s)\n", backtrace ? backtrace : "unset");
    }
}

/* The legacy Solutions graphs (mp.solutions) through the C options: one person only, the legacy handedness
 * labels (index 0 "Left"), smoothing switches, and an older struct (without the 0.3 fields) runs the Tasks graph. */
static void test_legacy_solution(void) {
    current = "legacy_solution";
    photo p = load(POSE_PHOTO);
    blazekit_image image = rgb_image(&p);
    blazekit_pose_landmarker_options o;
    blazekit_pose_landmarker *lm = NULL;
    blazekit_pose_landmarker_options_init(&o);
    o.legacy_solution = 1;
    o.num_poses = 2;
    CHECK_STATUS(blazekit_pose_landmarker_create(&o, &lm), BLAZEKIT_ERROR_INVALID_OPTION, "numPoses");
    o.num_poses = 1;
    o.running_mode = BLAZEKIT_RUNNING_MODE_VIDEO;
    o.output_segmentation_masks = 1;
    blazekit_pose_result *frames[2][3] = {{NULL}};
    for (int smooth = 0; smooth < 2; smooth++) {
        o.smooth_landmarks = o.smooth_segmentation = smooth;
        CHECK_STATUS(blazekit_pose_landmarker_create(&o, &lm), BLAZEKIT_OK, NULL);
        for (int t = 0; t < 3 && lm; t++) {
            image.width = p.w - 16 + 8 * t;   /* a moving crop: the photo's left part, widening */
            CHECK_STATUS(blazekit_pose_landmarker_detect_for_video(lm, &image, 40 * t, &frames[smooth][t]), BLAZEKIT_OK, NULL);
            CHECK(frames[smooth][t] && frames[smooth][t]->pose_count == 1 && frames[smooth][t]->mask_count == 1, "frame %d", t);
        }
        blazekit_pose_landmarker_destroy(lm);
        lm = NULL;
    }
    image.width = p.w;
    if (frames[0][2] && frames[1][2]) {
        CHECK(memcmp(frames[0][2]->landmarks, frames[1][2]->landmarks, 33 * sizeof(blazekit_landmark)) != 0,
              "smooth_landmarks changes a moving pose");
    }
    for (int s = 0; s < 2; s++) for (int t = 0; t < 3; t++) blazekit_pose_result_free(frames[s][t]);

    blazekit_hand_landmarker_options h;
    photo hp = load(HAND_PHOTO);
    blazekit_image himage = rgb_image(&hp);
    for (int variant = 0; variant < 3; variant++) {
        blazekit_hand_landmarker_options_init(&h);
        h.num_hands = 2;
        if (variant > 0) h.legacy_solution = 1;
        if (variant == 2) h.struct_size = offsetof(blazekit_hand_landmarker_options, legacy_solution);
        blazekit_hand_landmarker *hm = NULL;
        blazekit_hand_result *r = NULL;
        CHECK_STATUS(blazekit_hand_landmarker_create(&h, &hm), BLAZEKIT_OK, NULL);
        CHECK_STATUS(blazekit_hand_landmarker_detect(hm, &himage, &r), BLAZEKIT_OK, NULL);
        for (size_t i = 0; r && i < r->hand_count; i++) {
            const blazekit_category *c = &r->handedness[i];
            const char *index0 = variant == 1 ? "Left" : "Right";   /* legacy labels are for mirrored images */
            CHECK((c->index == 0) == (strcmp(c->category_name, index0) == 0), "variant %d: %d %s", variant, c->index, c->category_name);
        }
        CHECK(r && r->hand_count >= 1, "variant %d finds the hand", variant);
        blazekit_hand_result_free(r);
        blazekit_hand_landmarker_destroy(hm);
    }
    free(hp.rgb);
    free(p.rgb);
}

/* Identities: options checked by their C names, an older struct_size gets the defaults, voting keeps one label. */
static void test_identities(void) {
    current = "identities";
    blazekit_pose_landmarker_options o;
    blazekit_pose_landmarker *lm = NULL;
    blazekit_pose_landmarker_options_init(&o);
    o.running_mode = BLAZEKIT_RUNNING_MODE_VIDEO;
    o.identity_max_absent_frames = -1;
    CHECK_STATUS(blazekit_pose_landmarker_create(&o, &lm), BLAZEKIT_ERROR_INVALID_OPTION, "identity_max_absent_frames");
    CHECK(lm == NULL, "no landmarker");
    o.identity_max_absent_frames = 3;
    o.identity_min_similarity = 1.5f;
    CHECK_STATUS(blazekit_pose_landmarker_create(&o, &lm), BLAZEKIT_ERROR_INVALID_OPTION, "identity_min_similarity");
    blazekit_hand_landmarker_options h;
    blazekit_hand_landmarker *hm = NULL;
    blazekit_hand_landmarker_options_init(&h);
    h.identity_min_similarity = -0.5f;
    CHECK_STATUS(blazekit_hand_landmarker_create(&h, &hm), BLAZEKIT_ERROR_INVALID_OPTION, "identity_min_similarity");
    /* A 0.3 caller's struct ends before the identity fields: garbage after it is not read. */
    photo hp = load(HAND_PHOTO);
    blazekit_image himage = rgb_image(&hp);
    for (int variant = 0; variant < 2; variant++) {
        blazekit_hand_landmarker_options_init(&h);
        h.running_mode = BLAZEKIT_RUNNING_MODE_VIDEO;
        h.num_hands = 2;
        if (variant == 0) {
            h.identity_min_similarity = 7.0f;
            h.struct_size = offsetof(blazekit_hand_landmarker_options, identity_max_absent_frames);
        } else {
            h.vote_handedness = 1;
        }
        hm = NULL;
        CHECK_STATUS(blazekit_hand_landmarker_create(&h, &hm), BLAZEKIT_OK, NULL);
        int64_t first = -1;
        for (int t = 0; t < 4; t++) {
            blazekit_hand_result *r = NULL;
            CHECK_STATUS(blazekit_hand_landmarker_detect_for_video(hm, &himage, 10 * t, &r), BLAZEKIT_OK, NULL);
            CHECK(r && r->hand_count >= 1 && r->ids, "variant %d frame %d", variant, t);
            if (r && r->ids) {
                if (first < 0) first = r->ids[0];
                CHECK(r->ids[0] == first && first == 1, "variant %d frame %d: ID %lld", variant, t, (long long)r->ids[0]);
                for (size_t i = 1; i < r->hand_count; i++) CHECK(r->ids[i] != r->ids[0], "distinct IDs");
                const blazekit_category *c = &r->handedness[0];
                CHECK((c->index == 0) == (strcmp(c->category_name, "Right") == 0) && c->score >= 0 && c->score <= 1, "%d %s",
                      c->index, c->category_name);
            }
            blazekit_hand_result_free(r);
        }
        blazekit_hand_landmarker_destroy(hm);
    }
    free(hp.rgb);
}

int main(void) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    int crash_signals[6] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP}, installed[6];
    for (int i = 0; i < 6; i++) {
        struct sigaction action;
        sigaction(crash_signals[i], NULL, &action);
        installed[i] = action.sa_handler != SIG_DFL;
    }
    test_load_time_signal_handlers(installed);
    test_host_state();   /* first, before anything else loads the networks */
    test_version();
    test_error_message_per_thread();
    test_options_init();
    test_options_init_sizes();
    test_decode_file();
    test_create_errors();
    test_model_sources();
    test_image_errors();
    test_pixel_formats();
    test_pose_image();
    test_pose_video();
    test_pose_live_stream();
    test_hand_image();
    test_hand_video();
    test_hand_live_stream();
    test_threads();
    test_accurate_mode();
    test_legacy_solution();
    test_identities();
    test_fixed_plan();
    test_plan_cache();
    if (xfailed) printf("%d expected failure%s (see XFAIL above)\n", xfailed, xfailed == 1 ? "" : "s");
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
