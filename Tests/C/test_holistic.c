/* Tests of the holistic landmarker of blazekit.h (since 0.5): defaults, every option checked by its C name, the
 * result's parts and counts, segmentation and the refined face, an older struct_size, model sources, the three
 * running modes, NULLs and bad sizes. Built and run by Tools/checks/ctest.sh (also under AddressSanitizer) from
 * the repository root. Prints one line per failed check, then "N passed, M failed". */
#define _GNU_SOURCE
#include "blazekit.h"
#include "check.h"

#include <math.h>
#include <pthread.h>
#include <stddef.h>
#include <unistd.h>

/* MediaPipe's Holistic finds the pose, both hands and the face here (Tests/BlazeKitTests/Fixtures/holistic). */
#define PERSON "Tests/BlazeKitTests/Fixtures/pose/panoptic_ex2_2.flv_000040_l.png"

static photo person;   /* PERSON, loaded once */

static blazekit_holistic_landmarker *make(int mode, blazekit_holistic_result_callback cb, void *user) {
    blazekit_holistic_landmarker_options o;
    blazekit_holistic_landmarker_options_init(&o);
    o.running_mode = mode;
    o.result_callback = cb;
    o.user_data = user;
    blazekit_holistic_landmarker *lm = NULL;
    if (blazekit_holistic_landmarker_create(&o, &lm) != BLAZEKIT_OK) {
        printf("cannot create a holistic landmarker: %s\n", blazekit_last_error_message());
        exit(2);
    }
    return lm;
}

static int same_part(size_t n, const blazekit_landmark *a, const blazekit_landmark *b) {
    return n == 0 || (a && b && memcmp(a, b, n * sizeof *a) == 0);
}

/* Every part, bit for bit (the mask by its values). */
static int same_result(const blazekit_holistic_result *a, const blazekit_holistic_result *b) {
    if (a->face_landmark_count != b->face_landmark_count || a->pose_landmark_count != b->pose_landmark_count
        || a->left_hand_landmark_count != b->left_hand_landmark_count || a->right_hand_landmark_count != b->right_hand_landmark_count
        || (a->segmentation_mask == NULL) != (b->segmentation_mask == NULL)) return 0;
    if (a->segmentation_mask) {
        const blazekit_mask *m = a->segmentation_mask, *n = b->segmentation_mask;
        if (m->width != n->width || m->height != n->height
            || memcmp(m->data, n->data, (size_t)m->width * m->height * sizeof(float))) return 0;
    }
    return same_part(a->face_landmark_count, a->face_landmarks, b->face_landmarks)
        && same_part(a->pose_landmark_count, a->pose_landmarks, b->pose_landmarks)
        && same_part(a->pose_landmark_count, a->pose_world_landmarks, b->pose_world_landmarks)
        && same_part(a->left_hand_landmark_count, a->left_hand_landmarks, b->left_hand_landmarks)
        && same_part(a->left_hand_landmark_count, a->left_hand_world_landmarks, b->left_hand_world_landmarks)
        && same_part(a->right_hand_landmark_count, a->right_hand_landmarks, b->right_hand_landmarks)
        && same_part(a->right_hand_landmark_count, a->right_hand_world_landmarks, b->right_hand_world_landmarks);
}

/* The landmarks of one part: finite, near the image (a pose's legs below the frame reach y 1.8 here), with the
 * flags the part has. */
static int plausible(size_t n, const blazekit_landmark *l, const blazekit_landmark *world, uint32_t flags) {
    if (n && !l) return 0;
    for (size_t i = 0; i < n; i++) {
        if (!(l[i].x > -1 && l[i].x < 3 && l[i].y > -1 && l[i].y < 3 && isfinite(l[i].z))) return 0;
        if ((l[i].flags & 3) != flags) return 0;
        if (world && !(fabsf(world[i].x) < 3 && fabsf(world[i].y) < 3 && fabsf(world[i].z) < 3)) return 0;
    }
    return 1;
}

static void test_options(void) {
    current = "options";
    blazekit_holistic_landmarker_options o;
    memset(&o, 0xAB, sizeof o);
    CHECK_STATUS(blazekit_holistic_landmarker_options_init(&o), BLAZEKIT_OK, NULL);
    CHECK(o.struct_size == sizeof o && o.model_asset_path == NULL && o.model_asset_buffer == NULL && o.model_asset_buffer_size == 0, "");
    CHECK(o.running_mode == BLAZEKIT_RUNNING_MODE_IMAGE && o.model == BLAZEKIT_MODEL_FULL && o.thread_count == 1, "");
    CHECK(o.min_face_detection_confidence == 0.5f && o.min_face_suppression_threshold == 0.3f && o.min_face_landmarks_confidence == 0.5f
          && o.min_pose_detection_confidence == 0.5f && o.min_pose_suppression_threshold == 0.3f
          && o.min_pose_landmarks_confidence == 0.5f && o.min_hand_landmarks_confidence == 0.5f, "the legacy graph's defaults");
    CHECK(o.output_segmentation_mask == 0 && o.refine_face_landmarks == 0 && o.smooth_landmarks == 1 && o.smooth_segmentation == 1
          && o.solution_clock == 1 && o.result_callback == NULL && o.user_data == NULL, "mp.solutions.holistic's defaults");
    CHECK(o.fixed_plan == 0, "kernels planned by timing");
    CHECK_STATUS((blazekit_holistic_landmarker_options_init)(NULL), BLAZEKIT_ERROR_INVALID_ARGUMENT, "options is NULL");

    CHECK_COMMON_CREATE_ERRORS(holistic);
    blazekit_holistic_landmarker *lm = NULL;
#define WITH(field, value, status, needle) CHECK_OPTION(holistic, field, value, status, needle)
    WITH(min_face_detection_confidence, -0.1f, BLAZEKIT_ERROR_INVALID_OPTION, "min_face_detection_confidence");
    WITH(min_face_suppression_threshold, 1.5f, BLAZEKIT_ERROR_INVALID_OPTION, "min_face_suppression_threshold");
    WITH(min_face_landmarks_confidence, NAN, BLAZEKIT_ERROR_INVALID_OPTION, "min_face_landmarks_confidence");
    WITH(min_pose_detection_confidence, 2, BLAZEKIT_ERROR_INVALID_OPTION, "min_pose_detection_confidence");
    WITH(min_pose_suppression_threshold, -1, BLAZEKIT_ERROR_INVALID_OPTION, "min_pose_suppression_threshold");
    WITH(min_pose_landmarks_confidence, INFINITY, BLAZEKIT_ERROR_INVALID_OPTION, "min_pose_landmarks_confidence");
    WITH(min_hand_landmarks_confidence, 1.01f, BLAZEKIT_ERROR_INVALID_OPTION, "min_hand_landmarks_confidence");
    WITH(running_mode, BLAZEKIT_RUNNING_MODE_LIVE_STREAM, BLAZEKIT_ERROR_INVALID_OPTION, "result_callback");
    WITH(model_asset_path, "/nonexistent/pose_landmark_heavy.tflite", BLAZEKIT_ERROR_MODEL, "/nonexistent/pose_landmark_heavy.tflite");
    WITH(model_asset_path, "Tests/C/test_holistic.c", BLAZEKIT_ERROR_MODEL, "test_holistic.c");
    WITH(model_asset_path, "Tests", BLAZEKIT_ERROR_MODEL, "the directory has no");
    WITH(model_asset_buffer_size, 10, BLAZEKIT_ERROR_INVALID_OPTION, "model_asset_buffer");
    static const char garbage[64] = "not a model";
    blazekit_holistic_landmarker_options_init(&o);
    o.model_asset_buffer = garbage;
    o.model_asset_buffer_size = sizeof garbage;
    CHECK_STATUS(blazekit_holistic_landmarker_create(&o, &lm), BLAZEKIT_ERROR_MODEL, "<model_asset_buffer>");
#undef WITH
}

static void test_image(void) {
    current = "image";
    blazekit_image image = rgb_image(&person);
    blazekit_holistic_landmarker *lm = make(BLAZEKIT_RUNNING_MODE_IMAGE, NULL, NULL);
    blazekit_holistic_result *r = NULL;
    CHECK_STATUS(blazekit_holistic_landmarker_detect(lm, &image, &r), BLAZEKIT_OK, NULL);
    if (r) {
        CHECK(r->struct_size == sizeof *r && r->timestamp_ms == 0, "%zu", r->struct_size);
        CHECK(r->pose_landmark_count == 33 && r->face_landmark_count == 468 && r->left_hand_landmark_count == 21
              && r->right_hand_landmark_count == 21, "parts %zu %zu %zu %zu", r->pose_landmark_count, r->face_landmark_count,
              r->left_hand_landmark_count, r->right_hand_landmark_count);
        CHECK(plausible(r->pose_landmark_count, r->pose_landmarks, r->pose_world_landmarks, 3), "pose");
        CHECK(plausible(r->face_landmark_count, r->face_landmarks, NULL, 0), "face: x, y, z only");
        CHECK(plausible(r->left_hand_landmark_count, r->left_hand_landmarks, r->left_hand_world_landmarks, 0)
              && r->left_hand_world_landmarks, "left hand");
        CHECK(plausible(r->right_hand_landmark_count, r->right_hand_landmarks, r->right_hand_world_landmarks, 0)
              && r->right_hand_world_landmarks, "right hand");
        /* The person's left hand is on the image's right: its wrist is the pose's left wrist (15). */
        if (r->left_hand_landmarks && r->right_hand_landmarks && r->pose_landmarks)
            CHECK(fabsf(r->left_hand_landmarks[0].x - r->pose_landmarks[15].x) < 0.05f
                  && fabsf(r->right_hand_landmarks[0].x - r->pose_landmarks[16].x) < 0.05f, "hands at their wrists");
        CHECK(r->segmentation_mask == NULL, "no mask unless asked for");
    }
    /* Image mode remembers nothing: the same photo again, after another, gives the same bits. */
    photo other = load(POSE_PHOTO);
    blazekit_image other_image = rgb_image(&other);
    blazekit_holistic_result *between = NULL, *again = NULL;
    CHECK_STATUS(blazekit_holistic_landmarker_detect(lm, &other_image, &between), BLAZEKIT_OK, NULL);
    CHECK_STATUS(blazekit_holistic_landmarker_detect(lm, &image, &again), BLAZEKIT_OK, NULL);
    CHECK(r && again && same_result(r, again), "the same photo gives the same result");
    blazekit_holistic_result_free(between);
    blazekit_holistic_result_free(again);
    /* NULLs, bad images, other running modes, closing. */
    blazekit_holistic_result *bad = NULL;
    blazekit_image im = image;
    im.byte_count = image.byte_count - 1;
    CHECK_STATUS(blazekit_holistic_landmarker_detect(lm, &im, &bad), BLAZEKIT_ERROR_INVALID_ARGUMENT, "byte_count");
    im = image;
    im.struct_size = 2;
    CHECK_STATUS(blazekit_holistic_landmarker_detect(lm, &im, &bad), BLAZEKIT_ERROR_INVALID_ARGUMENT, "struct_size");
    CHECK_IMAGE_MODE_THEN_CLOSED(holistic, lm, &image);
    blazekit_holistic_landmarker_destroy(lm);
    blazekit_holistic_landmarker_destroy(NULL);
    blazekit_holistic_result_free(NULL);
    blazekit_holistic_result_free(r);
    free(other.rgb);
}

/* The options that change what is found: segmentation, the refined face, the thresholds; nothing found in a
 * blank frame; an older struct_size ignores the fields after it. */
static void test_parts(void) {
    current = "parts";
    blazekit_image image = rgb_image(&person);
    uint8_t *blank = malloc((size_t)person.w * person.h * 3);
    memset(blank, 127, (size_t)person.w * person.h * 3);
    blazekit_image blank_image = image;
    blank_image.pixels = blank;
    struct { const char *name; int segmentation, refine, old_size; float pose, face, hand; size_t counts[4]; int mask; } cases[] = {
        {"segmentation and refined face", 1, 1, 0, 0.5f, 0.5f, 0.5f, {33, 478, 21, 21}, 1},
        {"no pose above detection confidence 1", 0, 0, 0, 1, 0.5f, 0.5f, {0, 0, 0, 0}, 0},
        {"face landmarks confidence 1", 0, 0, 0, 0.5f, 1, 0.5f, {33, 0, 21, 21}, 0},
        {"hand landmarks confidence 1", 1, 0, 0, 0.5f, 0.5f, 1, {33, 468, 0, 0}, 1},
        {"a struct_size ending before output_segmentation_mask: defaults after it", 1, 1, 1, 0.5f, 0.5f, 0.5f, {33, 468, 21, 21}, 0},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        blazekit_holistic_landmarker_options o;
        blazekit_holistic_landmarker_options_init(&o);
        o.output_segmentation_mask = cases[c].segmentation;
        o.refine_face_landmarks = cases[c].refine;
        o.min_pose_detection_confidence = cases[c].pose;
        o.min_face_landmarks_confidence = cases[c].face;
        o.min_hand_landmarks_confidence = cases[c].hand;
        if (cases[c].old_size) o.struct_size = offsetof(blazekit_holistic_landmarker_options, output_segmentation_mask);
        blazekit_holistic_landmarker *lm = NULL;
        CHECK_STATUS(blazekit_holistic_landmarker_create(&o, &lm), BLAZEKIT_OK, NULL);
        blazekit_holistic_result *r = NULL;
        CHECK_STATUS(blazekit_holistic_landmarker_detect(lm, &image, &r), BLAZEKIT_OK, NULL);
        if (r) {
            size_t got[4] = {r->pose_landmark_count, r->face_landmark_count, r->left_hand_landmark_count, r->right_hand_landmark_count};
            CHECK(memcmp(got, cases[c].counts, sizeof got) == 0, "%s: parts %zu %zu %zu %zu", cases[c].name, got[0], got[1], got[2], got[3]);
            CHECK((r->segmentation_mask != NULL) == cases[c].mask, "%s: mask", cases[c].name);
            const blazekit_landmark *arrays[4] = {r->pose_landmarks, r->face_landmarks, r->left_hand_landmarks, r->right_hand_landmarks};
            for (int k = 0; k < 4; k++) CHECK((arrays[k] == NULL) == (got[k] == 0), "%s: part %d's array is NULL exactly when absent", cases[c].name, k);
            if (r->segmentation_mask) {
                const blazekit_mask *m = r->segmentation_mask;
                double sum = 0;
                for (size_t i = 0; m->data && i < (size_t)m->width * m->height; i++) sum += m->data[i];
                CHECK(m->width == person.w && m->height == person.h && sum > 100, "%s: mask %dx%d, sum %f", cases[c].name, m->width, m->height, sum);
            }
            if (r->face_landmark_count == 478) {
                /* The irises (468…477) sit inside the eyes' corners (33/133 and 362/263). */
                const blazekit_landmark *f = r->face_landmarks;
                CHECK(f[468].x > fminf(f[33].x, f[133].x) && f[468].x < fmaxf(f[33].x, f[133].x)
                      && f[473].x > fminf(f[362].x, f[263].x) && f[473].x < fmaxf(f[362].x, f[263].x), "irises inside the eyes");
            }
        }
        blazekit_holistic_result_free(r);
        r = NULL;
        CHECK_STATUS(blazekit_holistic_landmarker_detect(lm, &blank_image, &r), BLAZEKIT_OK, NULL);
        CHECK(r && r->pose_landmark_count == 0 && r->face_landmark_count == 0 && r->left_hand_landmark_count == 0
              && r->right_hand_landmark_count == 0 && !r->pose_landmarks && !r->pose_world_landmarks && !r->face_landmarks
              && !r->left_hand_landmarks && !r->right_hand_world_landmarks && !r->segmentation_mask, "%s: nothing in a blank frame", cases[c].name);
        blazekit_holistic_result_free(r);
        blazekit_holistic_landmarker_destroy(lm);
    }
    free(blank);
}

/* The built-in networks, the model directory, the pose landmark model as a path and as a buffer: the same bits. */
static void test_model_sources(void) {
    current = "model_sources";
    blazekit_image image = rgb_image(&person);
    blazekit_holistic_result *want = NULL;
    blazekit_holistic_landmarker_options o;
    blazekit_holistic_landmarker_options_init(&o);
    o.model = BLAZEKIT_MODEL_LITE;
    blazekit_holistic_landmarker *lm = NULL;
    CHECK_STATUS(blazekit_holistic_landmarker_create(&o, &lm), BLAZEKIT_OK, NULL);
    CHECK_STATUS(blazekit_holistic_landmarker_detect(lm, &image, &want), BLAZEKIT_OK, NULL);
    blazekit_holistic_landmarker_destroy(lm);
    size_t size = 0;
    uint8_t *bkm = read_file("Models/bkm/pose_landmark_lite.bkm", &size);
    CHECK(bkm != NULL, "read the lite model");
    for (int variant = 0; variant < 3; variant++) {
        blazekit_holistic_landmarker_options_init(&o);
        if (variant == 0) { o.model_asset_path = "Models/bkm"; o.model = BLAZEKIT_MODEL_LITE; }
        if (variant == 1) o.model_asset_path = "Models/bkm/pose_landmark_lite.bkm";   /* replaces the full network */
        if (variant == 2) { o.model_asset_buffer = bkm; o.model_asset_buffer_size = size; }
        lm = NULL;
        CHECK_STATUS(blazekit_holistic_landmarker_create(&o, &lm), BLAZEKIT_OK, NULL);
        blazekit_holistic_result *got = NULL;
        if (lm) CHECK_STATUS(blazekit_holistic_landmarker_detect(lm, &image, &got), BLAZEKIT_OK, NULL);
        CHECK(got && want && got->pose_landmark_count == 33 && same_result(got, want), "variant %d gives the lite model's result", variant);
        blazekit_holistic_result_free(got);
        blazekit_holistic_landmarker_destroy(lm);
    }
    /* The full network is not the lite one. */
    lm = make(BLAZEKIT_RUNNING_MODE_IMAGE, NULL, NULL);
    blazekit_holistic_result *full = NULL;
    CHECK_STATUS(blazekit_holistic_landmarker_detect(lm, &image, &full), BLAZEKIT_OK, NULL);
    CHECK(full && want && !same_result(full, want), "model FULL differs from LITE");
    blazekit_holistic_result_free(full);
    blazekit_holistic_landmarker_destroy(lm);
    free(bkm);
    blazekit_holistic_result_free(want);
}

static void test_video(void) {
    current = "video";
    blazekit_image image = rgb_image(&person);
    blazekit_holistic_landmarker *lm = make(BLAZEKIT_RUNNING_MODE_VIDEO, NULL, NULL);
    blazekit_holistic_result *r = NULL;
    for (int64_t t = 0; t < 100; t += 33) {
        CHECK_STATUS(blazekit_holistic_landmarker_detect_for_video(lm, &image, t, &r), BLAZEKIT_OK, NULL);
        CHECK(r && r->timestamp_ms == t && r->pose_landmark_count == 33 && r->face_landmark_count == 468
              && r->left_hand_landmark_count == 21 && r->right_hand_landmark_count == 21, "frame %lld", (long long)t);
        blazekit_holistic_result_free(r);
        r = NULL;
    }
    CHECK_STATUS(blazekit_holistic_landmarker_detect_for_video(lm, &image, 66, &r), BLAZEKIT_ERROR_TIMESTAMP, "66");
    CHECK(r == NULL, "no result");
    CHECK_STATUS(blazekit_holistic_landmarker_detect_for_video(lm, &image, 99, &r), BLAZEKIT_ERROR_TIMESTAMP, "not greater");
    CHECK_VIDEO_MODE_MISUSE(holistic, lm, &image);
    blazekit_holistic_landmarker_destroy(lm);
}

typedef struct {
    pthread_mutex_t lock;
    int calls, errors, same;
    blazekit_holistic_result *expected[3];
} live_state;

static void live_cb(void *user, int32_t status, const char *message, const blazekit_holistic_result *r, int64_t t) {
    live_state *s = user;
    pthread_mutex_lock(&s->lock);
    s->calls++;
    if (status != BLAZEKIT_OK || !r || message || t < 0 || t > 2) s->errors++;
    else if (s->expected[t] && same_result(r, s->expected[t]) && r->timestamp_ms == t) s->same++;
    pthread_mutex_unlock(&s->lock);
}

/* Live stream, one frame at a time: the video results, on the library's thread; nothing after close. */
static void test_live_stream(void) {
    current = "live_stream";
    blazekit_image image = rgb_image(&person);
    live_state s = {PTHREAD_MUTEX_INITIALIZER, 0, 0, 0, {NULL}};
    blazekit_holistic_landmarker *video = make(BLAZEKIT_RUNNING_MODE_VIDEO, NULL, NULL);
    for (int t = 0; t < 3; t++) blazekit_holistic_landmarker_detect_for_video(video, &image, t, &s.expected[t]);
    blazekit_holistic_landmarker_destroy(video);
    blazekit_holistic_landmarker *lm = make(BLAZEKIT_RUNNING_MODE_LIVE_STREAM, live_cb, &s);
    for (int t = 0; t < 3; t++) {
        CHECK_STATUS(blazekit_holistic_landmarker_detect_async(lm, &image, t), BLAZEKIT_OK, NULL);
        for (int i = 0; i < 3000; i++) {   /* up to a minute a frame (ASan, a busy machine) */
            pthread_mutex_lock(&s.lock);
            int done = s.calls > t;
            pthread_mutex_unlock(&s.lock);
            if (done) break;
            usleep(20000);
        }
    }
    CHECK_STATUS(blazekit_holistic_landmarker_detect_async(lm, &image, 2), BLAZEKIT_ERROR_TIMESTAMP, "2");
    CHECK_STATUS(blazekit_holistic_landmarker_detect_async(lm, NULL, 10), BLAZEKIT_ERROR_INVALID_ARGUMENT, "image is NULL");
    blazekit_holistic_result *r = NULL;
    CHECK_STATUS(blazekit_holistic_landmarker_detect(lm, &image, &r), BLAZEKIT_ERROR_RUNNING_MODE, "IMAGE");
    CHECK_STATUS(blazekit_holistic_landmarker_close(lm), BLAZEKIT_OK, NULL);
    pthread_mutex_lock(&s.lock);
    CHECK(s.calls == 3 && s.errors == 0 && s.same == 3, "%d calls, %d errors, %d as in video mode", s.calls, s.errors, s.same);
    pthread_mutex_unlock(&s.lock);
    CHECK_STATUS(blazekit_holistic_landmarker_detect_async(lm, &image, 100), BLAZEKIT_ERROR_CLOSED, "closed");
    blazekit_holistic_landmarker_destroy(lm);
    {   /* a callback outside LIVE_STREAM mode */
        blazekit_holistic_landmarker_options o;
        blazekit_holistic_landmarker_options_init(&o);
        o.result_callback = live_cb;
        blazekit_holistic_landmarker *none = NULL;
        CHECK_STATUS(blazekit_holistic_landmarker_create(&o, &none), BLAZEKIT_ERROR_INVALID_OPTION, "result_callback");
    }
    for (int t = 0; t < 3; t++) blazekit_holistic_result_free(s.expected[t]);
}

/* fixed_plan (since 0.6): the timed plan's bits, mask included, at 1 and 2 threads (two threads run the hands side by
 * side); a struct_size ending before the field gets the default. */
static void test_fixed_plan(void) {
    current = "fixed_plan";
    blazekit_image image = rgb_image(&person);
    for (int threads = 1; threads <= 2; threads++) {
        blazekit_holistic_result *r[3] = {NULL, NULL, NULL};
        for (int variant = 0; variant < 3; variant++) {   /* timed, fixed, fixed_plan set but left out by struct_size */
            blazekit_holistic_landmarker_options o;
            blazekit_holistic_landmarker_options_init(&o);
            o.output_segmentation_mask = 1;
            DETECT_WITH_PLAN(holistic, o, threads, variant, &image, &r[variant]);
        }
        CHECK(r[0] && r[0]->pose_landmark_count == 33 && r[0]->face_landmark_count == 468 && r[0]->segmentation_mask,
              "%d threads: pose, face and mask", threads);
        for (int variant = 1; variant < 3; variant++)
            CHECK(r[0] && r[variant] && same_result(r[0], r[variant]), "%d threads, variant %d: the same bits", threads, variant);
        for (int variant = 0; variant < 3; variant++) blazekit_holistic_result_free(r[variant]);
    }
}

int main(void) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    person = load(PERSON);
    test_options();
    test_image();
    test_parts();
    test_model_sources();
    test_video();
    test_live_stream();
    test_fixed_plan();
    free(person.rgb);
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
