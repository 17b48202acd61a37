/* One person's pose, hands and face mesh in one photo (running mode IMAGE), as mp.solutions.holistic finds them.
 * Usage: holistic_image PHOTO [refine]   ("refine": the 478-point face mesh with the irises) */
#include "blazekit.h"
#include <stdio.h>
#include <string.h>

/* The photo as an image to detect on, displayed upright; *rgb receives its pixels, to free. */
static int load(const char *path, blazekit_image *image, uint8_t **rgb) {
    int32_t width = 0, height = 0, orientation = 0;
    int status = blazekit_image_decode_file(path, rgb, &width, &height, &orientation);
    blazekit_image_init(image, *rgb, (size_t)width * height * 3, width, height, BLAZEKIT_PIXEL_FORMAT_RGB);
    image->orientation = orientation;
    return status;
}

static void part(const char *name, size_t count, const blazekit_landmark *landmarks) {
    if (count == 0) printf("  %-10s not found\n", name);
    else printf("  %-10s %3zu landmarks, the first at (%.4f, %.4f)\n", name, count, landmarks[0].x, landmarks[0].y);
}

int main(int argc, char **argv) {
    if (argc < 2) { fprintf(stderr, "usage: %s PHOTO [refine]\n", argv[0]); return 2; }
    blazekit_holistic_landmarker_options options;
    blazekit_holistic_landmarker_options_init(&options);       /* the built-in networks, mp.solutions' defaults */
    options.refine_face_landmarks = argc > 2 && strcmp(argv[2], "refine") == 0;
    options.output_segmentation_mask = 1;
    blazekit_image image;
    uint8_t *rgb = NULL;
    blazekit_holistic_landmarker *landmarker = NULL;
    blazekit_holistic_result *r = NULL;
    int status = load(argv[1], &image, &rgb);
    if (status == BLAZEKIT_OK) status = blazekit_holistic_landmarker_create(&options, &landmarker);
    if (status == BLAZEKIT_OK) status = blazekit_holistic_landmarker_detect(landmarker, &image, &r);
    if (status == BLAZEKIT_OK) {
        printf("%s (%dx%d):\n", argv[1], image.width, image.height);
        part("pose", r->pose_landmark_count, r->pose_landmarks);
        part("face", r->face_landmark_count, r->face_landmarks);
        part("left hand", r->left_hand_landmark_count, r->left_hand_landmarks);
        part("right hand", r->right_hand_landmark_count, r->right_hand_landmarks);
        if (r->segmentation_mask) printf("  mask       %dx%d\n", r->segmentation_mask->width, r->segmentation_mask->height);
    } else {
        fprintf(stderr, "%s: %s\n", blazekit_status_name(status), blazekit_last_error_message());
    }
    blazekit_holistic_result_free(r);
    blazekit_holistic_landmarker_destroy(landmarker);
    blazekit_pixels_free(rgb);
    return status == BLAZEKIT_OK ? 0 : 1;
}
