/* Pose landmarks of a sequence of frames (running mode VIDEO: tracked, timestamps increasing).
 * Usage: pose_video FRAME... (PNG or JPEG files, 30 fps assumed) */
#include "blazekit.h"
#include <stdio.h>

int main(int argc, char **argv) {
    if (argc < 2) { fprintf(stderr, "usage: %s FRAME...\n", argv[0]); return 2; }
    blazekit_pose_landmarker_options options;
    blazekit_pose_landmarker_options_init(&options);
    options.running_mode = BLAZEKIT_RUNNING_MODE_VIDEO;
    blazekit_pose_landmarker *landmarker = NULL;
    if (blazekit_pose_landmarker_create(&options, &landmarker) != BLAZEKIT_OK) {
        fprintf(stderr, "%s\n", blazekit_last_error_message());
        return 1;
    }
    int failures = 0;
    for (int i = 1; i < argc; i++) {
        uint8_t *rgb = NULL;
        int32_t w, h;
        if (blazekit_image_decode_file(argv[i], &rgb, &w, &h, NULL) != BLAZEKIT_OK) {
            fprintf(stderr, "%s\n", blazekit_last_error_message());
            failures++;
            continue;
        }
        blazekit_image image;
        blazekit_image_init(&image, rgb, (size_t)w * h * 3, w, h, BLAZEKIT_PIXEL_FORMAT_RGB);
        int64_t timestamp_ms = (int64_t)(i - 1) * 1000 / 30;
        blazekit_pose_result *result = NULL;
        if (blazekit_pose_landmarker_detect_for_video(landmarker, &image, timestamp_ms, &result) == BLAZEKIT_OK) {
            printf("%lld ms: %zu pose(s)\n", (long long)result->timestamp_ms, result->pose_count);
        } else {
            fprintf(stderr, "%s\n", blazekit_last_error_message());
            failures++;
        }
        blazekit_pose_result_free(result);
        blazekit_pixels_free(rgb);
    }
    blazekit_pose_landmarker_destroy(landmarker);
    return failures ? 1 : 0;
}
