/* Pose landmarks of one photo (running mode IMAGE).  Usage: pose_image PHOTO [MODEL]
 * MODEL: a MediaPipe pose_landmarker_*.task bundle or a converted model; the built-in full model if omitted. */
#include "blazekit.h"
#include <stdio.h>

int main(int argc, char **argv) {
    if (argc < 2) { fprintf(stderr, "usage: %s PHOTO [MODEL]\n", argv[0]); return 2; }
    uint8_t *rgb = NULL;
    int32_t width, height, orientation;
    if (blazekit_image_decode_file(argv[1], &rgb, &width, &height, &orientation) != BLAZEKIT_OK) {
        fprintf(stderr, "%s\n", blazekit_last_error_message());
        return 1;
    }
    blazekit_image image;
    blazekit_image_init(&image, rgb, (size_t)width * height * 3, width, height, BLAZEKIT_PIXEL_FORMAT_RGB);
    image.orientation = orientation;

    blazekit_pose_landmarker_options options;
    blazekit_pose_landmarker_options_init(&options);
    options.model_asset_path = argc > 2 ? argv[2] : NULL;
    options.num_poses = 2;
    blazekit_pose_landmarker *landmarker = NULL;
    blazekit_pose_result *result = NULL;
    int status = blazekit_pose_landmarker_create(&options, &landmarker);
    if (status == BLAZEKIT_OK) status = blazekit_pose_landmarker_detect(landmarker, &image, &result);
    if (status != BLAZEKIT_OK) {
        fprintf(stderr, "%s: %s\n", blazekit_status_name(status), blazekit_last_error_message());
    } else {
        printf("%zu pose(s) in %s (%dx%d)\n", result->pose_count, argv[1], width, height);
        for (size_t p = 0; p < result->pose_count; p++) {
            const blazekit_landmark *nose = &result->landmarks[p * result->landmarks_per_pose];
            printf("  pose %zu: nose at (%.4f, %.4f), visibility %.3f\n", p, nose->x, nose->y, nose->visibility);
        }
    }
    blazekit_pose_result_free(result);
    blazekit_pose_landmarker_destroy(landmarker);
    blazekit_pixels_free(rgb);
    return status == BLAZEKIT_OK ? 0 : 1;
}
