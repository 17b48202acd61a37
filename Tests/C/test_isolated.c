/* libblazekit.so copied away from its build folder, without the built-in models beside it: creating a
 * landmarker that needs them fails with BLAZEKIT_ERROR_MODEL and a message saying so (never a crash); a
 * directory of converted models still works. Run by Tools/checks/ctest.sh from the repository root. */
#include "blazekit.h"
#include <stdio.h>
#include <string.h>

static int passed, failed;
#define CHECK(cond, what) do { if (cond) passed++; else { failed++; printf("FAIL %s: %s\n", what, blazekit_last_error_message()); } } while (0)

int main(void) {
    blazekit_pose_landmarker_options o;
    blazekit_pose_landmarker_options_init(&o);
    blazekit_pose_landmarker *lm = NULL;
    int s = blazekit_pose_landmarker_create(&o, &lm);
    CHECK(s == BLAZEKIT_ERROR_MODEL && lm == NULL && strstr(blazekit_last_error_message(), "built-in models were not found"),
          "built-in pose models");
    o.model_asset_path = "Models/bkm/pose_landmark_lite.bkm";
    s = blazekit_pose_landmarker_create(&o, &lm);
    CHECK(s == BLAZEKIT_ERROR_MODEL && lm == NULL, "a landmark model needing the built-in detector");
    blazekit_hand_landmarker_options h;
    blazekit_hand_landmarker_options_init(&h);
    blazekit_hand_landmarker *hm = NULL;
    s = blazekit_hand_landmarker_create(&h, &hm);
    CHECK(s == BLAZEKIT_ERROR_MODEL && hm == NULL, "built-in hand models");
    h.model_asset_path = "Models/bkm";
    s = blazekit_hand_landmarker_create(&h, &hm);
    CHECK(s == BLAZEKIT_OK && hm != NULL, "a directory of converted models");
    blazekit_hand_landmarker_destroy(hm);
    blazekit_holistic_landmarker_options ho;
    blazekit_holistic_landmarker_options_init(&ho);
    blazekit_holistic_landmarker *holistic = NULL;
    s = blazekit_holistic_landmarker_create(&ho, &holistic);
    CHECK(s == BLAZEKIT_ERROR_MODEL && holistic == NULL && strstr(blazekit_last_error_message(), "built-in models were not found"),
          "built-in holistic models");
    ho.model_asset_path = "Models/bkm/pose_landmark_full.bkm";
    s = blazekit_holistic_landmarker_create(&ho, &holistic);
    CHECK(s == BLAZEKIT_ERROR_MODEL && holistic == NULL, "a pose landmark model needing the other built-in networks");
    ho.model_asset_path = "Models/bkm";
    s = blazekit_holistic_landmarker_create(&ho, &holistic);
    CHECK(s == BLAZEKIT_OK && holistic != NULL, "holistic from a directory of converted models");
    blazekit_holistic_landmarker_destroy(holistic);
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
