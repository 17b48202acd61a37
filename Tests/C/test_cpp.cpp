// blazekit.h compiles as C++ and links with C linkage (extern "C"): a smoke test run by Tools/checks/ctest.sh.
#include "blazekit.h"

#include <cstdio>
#include <memory>
#include <string>

int main() {
    blazekit_pose_landmarker_options options;
    if (blazekit_pose_landmarker_options_init(&options) != BLAZEKIT_OK) return 1;
    options.num_poses = 0;
    blazekit_pose_landmarker *raw = nullptr;
    blazekit_status status = blazekit_pose_landmarker_create(&options, &raw);
    std::string message = blazekit_last_error_message();
    bool ok = status == BLAZEKIT_ERROR_INVALID_OPTION && raw == nullptr && message.find("num_poses") != std::string::npos;
    blazekit_hand_landmarker_options hand;
    blazekit_hand_landmarker_options_init(&hand);
    blazekit_hand_landmarker *h = nullptr;
    ok = ok && blazekit_hand_landmarker_create(&hand, &h) == BLAZEKIT_OK;
    std::unique_ptr<blazekit_hand_landmarker, void (*)(blazekit_hand_landmarker *)> owned(h, blazekit_hand_landmarker_destroy);
    blazekit_holistic_landmarker_options holistic;
    ok = ok && blazekit_holistic_landmarker_options_init(&holistic) == BLAZEKIT_OK;
    holistic.thread_count = 0;
    blazekit_holistic_landmarker *hl = nullptr;
    ok = ok && blazekit_holistic_landmarker_create(&holistic, &hl) == BLAZEKIT_ERROR_INVALID_OPTION && hl == nullptr;
    std::printf("C++: blazekit %s, %s\n", blazekit_version_string(), ok ? "ok" : "FAILED");
    std::printf("%d passed, %d failed\n", ok ? 1 : 0, ok ? 0 : 1);
    return ok ? 0 : 1;
}
