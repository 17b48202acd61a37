/* Hand landmarks of a "camera" (running mode LIVE_STREAM): the same photo sent as 30 frames at 30 fps;
 * results arrive on the library's thread through a callback.  Usage: hand_live_stream PHOTO */
#define _DEFAULT_SOURCE
#include "blazekit.h"
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

typedef struct { pthread_mutex_t lock; int frames, hands; } counts;

/* Runs on a library thread: copy what you need; `result` is freed when this returns. */
static void on_result(void *user_data, int32_t status, const char *error_message,
                      const blazekit_hand_result *result, int64_t timestamp_ms) {
    counts *c = user_data;
    if (status != BLAZEKIT_OK) { fprintf(stderr, "%lld ms: %s\n", (long long)timestamp_ms, error_message); return; }
    pthread_mutex_lock(&c->lock);
    c->frames++;
    c->hands += (int)result->hand_count;
    pthread_mutex_unlock(&c->lock);
}

int main(int argc, char **argv) {
    if (argc < 2) { fprintf(stderr, "usage: %s PHOTO\n", argv[0]); return 2; }
    uint8_t *rgb = NULL;
    int32_t w, h;
    if (blazekit_image_decode_file(argv[1], &rgb, &w, &h, NULL) != BLAZEKIT_OK) {
        fprintf(stderr, "%s\n", blazekit_last_error_message());
        return 1;
    }
    counts c = {PTHREAD_MUTEX_INITIALIZER, 0, 0};
    blazekit_hand_landmarker_options options;
    blazekit_hand_landmarker_options_init(&options);
    options.running_mode = BLAZEKIT_RUNNING_MODE_LIVE_STREAM;
    options.result_callback = on_result;
    options.user_data = &c;
    blazekit_hand_landmarker *landmarker = NULL;
    if (blazekit_hand_landmarker_create(&options, &landmarker) != BLAZEKIT_OK) {
        fprintf(stderr, "%s\n", blazekit_last_error_message());
        return 1;
    }
    blazekit_image image;
    blazekit_image_init(&image, rgb, (size_t)w * h * 3, w, h, BLAZEKIT_PIXEL_FORMAT_RGB);
    for (int i = 0; i < 30; i++) {
        if (blazekit_hand_landmarker_detect_async(landmarker, &image, (int64_t)i * 33) != BLAZEKIT_OK)
            fprintf(stderr, "%s\n", blazekit_last_error_message());
        usleep(33000);   /* the buffer may be reused at once: detect_async copied it */
    }
    blazekit_hand_landmarker_close(landmarker);   /* waits for the frame in flight; no callback after this */
    printf("%d of 30 frames processed (the rest were replaced by newer ones), %d hand(s)\n", c.frames, c.hands);
    blazekit_hand_landmarker_destroy(landmarker);
    blazekit_pixels_free(rgb);
    return c.frames > 0 ? 0 : 1;
}
