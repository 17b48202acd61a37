/*
 * blazekit.h — BlazeKit's C ABI: MediaPipe Tasks' pose, hand and holistic landmarkers for C and C++.
 *
 * Link with -lblazekit (the `blazekit` product: `swift build -c release --product blazekit`).
 *
 * CONVENTIONS
 * - Every function that can fail returns a blazekit_status; BLAZEKIT_OK is 0. On failure,
 *   blazekit_last_error_message() on the same thread returns a message naming the option, file,
 *   argument or timestamp at fault. Output parameters are left NULL on failure.
 * - Nothing crashes on bad input: NULL handles and pointers, zero, negative or absurd sizes and strides,
 *   unknown enum values, non-increasing timestamps and closed landmarkers all return an error. (Passing a
 *   pointer that is not NULL but invalid, e.g. a destroyed handle or a buffer shorter than the size you
 *   state, is undefined behaviour, as in any C API.)
 * - Structs passed IN carry their own size in their first field, `struct_size`; set it with the
 *   matching *_init function (or to sizeof the struct). A library reads only the fields the caller's
 *   size covers and uses defaults for the rest, so a program built against an older header keeps
 *   working with a newer library. A struct_size larger than this library knows is refused.
 * - Structs passed OUT (results) also begin with `struct_size`; later versions only append fields.
 * - The library does not change process-wide state of the host: no environment variables, signal
 *   handlers, locale or BLAS settings. (See Tests/C/test_blazekit.c, test "host_state".)
 *
 * VERSIONING (semantic). blazekit_version() returns major << 16 | minor << 8 | patch.
 * A minor version may: add functions, enum values and error codes; append fields at the end of
 * structs (guarded by struct_size); make an error message more precise. It may not: remove or rename a
 * function, change a signature, reorder or resize a field, change an enum value's meaning, or change
 * results of the same model on the same input (results are deterministic, bit for bit). Error messages
 * are for people; match on the status code, not on the text. A patch version fixes bugs only.
 *
 * THREAD SAFETY is stated per function. In short: a landmarker may be used from any thread; calls on one
 * landmarker are serialized inside the library (two threads calling detect on one landmarker take turns);
 * separate landmarkers run in parallel. Results are independent objects, freed from any thread.
 */
#ifndef BLAZEKIT_H
#define BLAZEKIT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define BLAZEKIT_VERSION_MAJOR 0
#define BLAZEKIT_VERSION_MINOR 8
#define BLAZEKIT_VERSION_PATCH 0

/* ---------------------------------------------------------------------------------------------- */
/* Status codes, version, errors                                                                   */
/* ---------------------------------------------------------------------------------------------- */

typedef enum blazekit_status {
    BLAZEKIT_OK = 0,
    /** A NULL pointer, a bad struct_size, a bad image (size, stride, format, orientation, buffer). */
    BLAZEKIT_ERROR_INVALID_ARGUMENT = 1,
    /** An option out of range (num_poses, confidences, thread_count, running mode, callback). */
    BLAZEKIT_ERROR_INVALID_OPTION = 2,
    /** The model file or buffer cannot be opened, read or converted. */
    BLAZEKIT_ERROR_MODEL = 3,
    /** A detect function of another running mode than the landmarker's. */
    BLAZEKIT_ERROR_RUNNING_MODE = 4,
    /** A video or live-stream timestamp not greater than the previous one. */
    BLAZEKIT_ERROR_TIMESTAMP = 5,
    /** The landmarker was closed. */
    BLAZEKIT_ERROR_CLOSED = 6,
    /** Anything else (the message says what). */
    BLAZEKIT_ERROR_INTERNAL = 7
} blazekit_status;

/** The library's version, major << 16 | minor << 8 | patch. Thread-safe. */
uint32_t blazekit_version(void);

/** The version as "major.minor.patch" (static storage; never free it). Thread-safe. */
const char *blazekit_version_string(void);

/** The constant's name, e.g. "BLAZEKIT_ERROR_TIMESTAMP"; "BLAZEKIT_UNKNOWN_STATUS" for other values.
 *  Static storage. Thread-safe. */
const char *blazekit_status_name(int32_t status);

/** The message of the last failed call on the calling thread ("" if none yet). Valid until the next
 *  failed blazekit call on this thread; copy it to keep it. Never NULL. Thread-safe (per-thread storage). */
const char *blazekit_last_error_message(void);

/* ---------------------------------------------------------------------------------------------- */
/* Images                                                                                          */
/* ---------------------------------------------------------------------------------------------- */

typedef enum blazekit_pixel_format {
    BLAZEKIT_PIXEL_FORMAT_RGB = 0,   /**< 3 bytes per pixel: R, G, B (MediaPipe's SRGB). */
    BLAZEKIT_PIXEL_FORMAT_RGBA = 1,  /**< 4 bytes per pixel: R, G, B, A (alpha ignored). */
    BLAZEKIT_PIXEL_FORMAT_BGRA = 2,  /**< 4 bytes per pixel: B, G, R, A (alpha ignored). */
    BLAZEKIT_PIXEL_FORMAT_GRAY = 3   /**< 1 byte per pixel, used as R = G = B. */
} blazekit_pixel_format;

/** How the stored pixels must be turned to display upright (iOS UIImage.Orientation). Results are
 *  normalized to the displayed image. Mirrored orientations are refused, as MediaPipe does. */
typedef enum blazekit_orientation {
    BLAZEKIT_ORIENTATION_UP = 0,
    BLAZEKIT_ORIENTATION_DOWN = 1,   /**< rotate 180° to display */
    BLAZEKIT_ORIENTATION_LEFT = 2,   /**< rotate 90° counter-clockwise to display */
    BLAZEKIT_ORIENTATION_RIGHT = 3,  /**< rotate 90° clockwise to display */
    BLAZEKIT_ORIENTATION_UP_MIRRORED = 4,
    BLAZEKIT_ORIENTATION_DOWN_MIRRORED = 5,
    BLAZEKIT_ORIENTATION_LEFT_MIRRORED = 6,
    BLAZEKIT_ORIENTATION_RIGHT_MIRRORED = 7
} blazekit_orientation;

/** A caller's pixel buffer. The library copies the pixels during the call that takes the image
 *  (detect_async included), so the buffer may be reused as soon as that call returns. */
typedef struct blazekit_image {
    size_t struct_size;      /**< sizeof(blazekit_image) */
    const void *pixels;      /**< first byte of the top row */
    size_t byte_count;       /**< bytes readable at `pixels`: at least bytes_per_row*(height-1) + width*bpp */
    int32_t width;           /**< 1 … 16384 */
    int32_t height;          /**< 1 … 16384, and width*height <= 2^26 */
    size_t bytes_per_row;    /**< row stride, at least width*bpp; 0 means packed (width*bpp) */
    int32_t format;          /**< a blazekit_pixel_format */
    int32_t orientation;     /**< a blazekit_orientation; 0 = up */
} blazekit_image;

/** Fills `image` for a packed buffer (struct_size set, bytes_per_row = width*bpp, orientation up).
 *  Validates nothing: the detect call does. No-op on NULL. Thread-safe. */
void blazekit_image_init(blazekit_image *image, const void *pixels, size_t byte_count, int32_t width,
                         int32_t height, int32_t format);

/** Decodes a PNG or JPEG file (recognized by content) to packed RGB, exactly as BlazeKit's
 *  MPImage(contentsOfFile:) and MediaPipe's mp.Image.create_from_file do. *pixels receives
 *  width*height*3 bytes to free with blazekit_pixels_free; *orientation the JPEG's EXIF orientation
 *  (a blazekit_orientation; UP for PNG). `orientation` may be NULL. Errors: INVALID_ARGUMENT (NULL
 *  pointers, a file that cannot be read or decoded; the message names it). Thread-safe. */
blazekit_status blazekit_image_decode_file(const char *path, uint8_t **pixels, int32_t *width, int32_t *height,
                                           int32_t *orientation);

/** Frees pixels from blazekit_image_decode_file. NULL is a no-op. Thread-safe. */
void blazekit_pixels_free(uint8_t *pixels);

/* ---------------------------------------------------------------------------------------------- */
/* Results                                                                                         */
/* ---------------------------------------------------------------------------------------------- */

#define BLAZEKIT_LANDMARK_HAS_VISIBILITY 1u
#define BLAZEKIT_LANDMARK_HAS_PRESENCE 2u

/** One landmark. Normalized landmarks: x, y in [0, 1] of the displayed image's width and height, z on
 *  about x's scale. World landmarks: metres. visibility/presence are meaningful when `flags` has the
 *  matching bit (MediaPipe leaves them unset in some results). */
typedef struct blazekit_landmark {
    float x, y, z;
    float visibility;
    float presence;
    uint32_t flags;
} blazekit_landmark;

/** A float mask the size of the displayed image, row-major, values in [0, 1]. */
typedef struct blazekit_mask {
    int32_t width;
    int32_t height;
    const float *data;       /**< width*height values */
} blazekit_mask;

/** A classification category (MediaPipe's Category). */
typedef struct blazekit_category {
    int32_t index;           /**< handedness: 0 = "Right", 1 = "Left" */
    float score;
    const char *category_name;   /**< NUL-terminated; "" when the model has no label */
    const char *display_name;    /**< NUL-terminated; "" when the model has no label */
} blazekit_category;

/** What a pose landmarker finds in one image. Owned by the library; free with blazekit_pose_result_free. */
typedef struct blazekit_pose_result {
    size_t struct_size;
    int64_t timestamp_ms;               /**< 0 in image mode */
    size_t pose_count;
    size_t landmarks_per_pose;          /**< 33 */
    const blazekit_landmark *landmarks;        /**< pose_count*landmarks_per_pose, pose by pose */
    const blazekit_landmark *world_landmarks;  /**< same layout, in metres */
    size_t mask_count;                  /**< pose_count with output_segmentation_masks, else 0 */
    const blazekit_mask *segmentation_masks;
    /* Since 0.4. */
    /** BlazeKit's addition (not in MediaPipe): in VIDEO and LIVE_STREAM mode, pose_count stable IDs (>= 1),
     *  one per pose in the order of `landmarks`: a person keeps its ID while seen and through absences of up
     *  to identity_max_absent_frames frames; a new person gets the next ID; IDs are never reused by a
     *  landmarker. NULL in IMAGE mode and when pose_count is 0. Check struct_size before reading it. */
    const int64_t *ids;
} blazekit_pose_result;

/** What a hand landmarker finds in one image. Owned by the library; free with blazekit_hand_result_free. */
typedef struct blazekit_hand_result {
    size_t struct_size;
    int64_t timestamp_ms;               /**< 0 in image mode */
    size_t hand_count;
    size_t landmarks_per_hand;          /**< 21 */
    const blazekit_landmark *landmarks;        /**< hand_count*landmarks_per_hand; presence = the hand's presence score */
    const blazekit_landmark *world_landmarks;  /**< same layout, in metres */
    const blazekit_category *handedness;       /**< hand_count entries, one category per hand */
    /* Since 0.4. */
    /** BlazeKit's addition: hand_count stable IDs in VIDEO and LIVE_STREAM mode, as blazekit_pose_result's
     *  `ids`; NULL in IMAGE mode and when hand_count is 0. */
    const int64_t *ids;
} blazekit_hand_result;

/** Frees a result and every array it owns. NULL is a no-op. Thread-safe (any thread, once). */
void blazekit_pose_result_free(blazekit_pose_result *result);
/** Frees a result and every array it owns. NULL is a no-op. Thread-safe (any thread, once). */
void blazekit_hand_result_free(blazekit_hand_result *result);

/* ---------------------------------------------------------------------------------------------- */
/* Options                                                                                         */
/* ---------------------------------------------------------------------------------------------- */

typedef enum blazekit_running_mode {
    BLAZEKIT_RUNNING_MODE_IMAGE = 0,        /**< *_detect on independent photos */
    BLAZEKIT_RUNNING_MODE_VIDEO = 1,        /**< *_detect_for_video, increasing timestamps, tracking */
    BLAZEKIT_RUNNING_MODE_LIVE_STREAM = 2   /**< *_detect_async, results to result_callback */
} blazekit_running_mode;

/** The built-in networks used when no model path or buffer is given. */
typedef enum blazekit_model {
    BLAZEKIT_MODEL_FULL = 0,
    BLAZEKIT_MODEL_LITE = 1
} blazekit_model;

/** Live-stream result of a pose landmarker.
 *  Called on a thread the library owns (never the caller of detect_async), one call at a time per
 *  landmarker, in timestamp order, once per processed frame (a frame replaced by a newer one while
 *  waiting gets no call). On success `status` is BLAZEKIT_OK, `result` non-NULL and `error_message` NULL;
 *  on failure `result` is NULL and `error_message` says why. `result` and `error_message` are valid only
 *  during the call: copy what you keep and do not free them. The callback may call
 *  blazekit_pose_landmarker_close or _destroy on its own landmarker (after _destroy, it must not use the
 *  handle again). After _close returns, no callback is running or will be made. */
typedef void (*blazekit_pose_result_callback)(void *user_data, int32_t status, const char *error_message,
                                              const blazekit_pose_result *result, int64_t timestamp_ms);
/** Live-stream result of a hand landmarker; same rules as blazekit_pose_result_callback. */
typedef void (*blazekit_hand_result_callback)(void *user_data, int32_t status, const char *error_message,
                                              const blazekit_hand_result *result, int64_t timestamp_ms);

/** Options of a pose landmarker, MediaPipe Tasks' names and defaults. Initialize with
 *  blazekit_pose_landmarker_options_init, then change what you need. The model comes from, in order:
 *  model_asset_buffer (when non-NULL), model_asset_path (when non-NULL), else the built-in networks.
 *  The built-in networks are found in BlazeKit_BlazeModels.resources/bkm next to libblazekit.so (where
 *  `swift build` and the Python wheel put them); without them, creation from nothing or from a single
 *  converted landmark model (which uses the built-in detector) fails with BLAZEKIT_ERROR_MODEL.
 *  A buffer or a single converted model is staged in a private temporary file or directory under $TMPDIR
 *  (or /tmp), removed before create returns. */
typedef struct blazekit_pose_landmarker_options {
    size_t struct_size;
    /** A MediaPipe .task bundle, a converted landmark model (.bkm, used with the built-in detector), a
     *  MediaPipe .tflite landmark model (e.g. pose_landmark_heavy.tflite; converted during create into a
     *  private temporary file, since 0.5) or a directory of converted models. NUL-terminated; copied during create. */
    const char *model_asset_path;
    /** The bytes of a .task bundle or a converted .bkm landmark model; copied during create. */
    const void *model_asset_buffer;
    size_t model_asset_buffer_size;
    int32_t running_mode;               /**< blazekit_running_mode; default IMAGE */
    int32_t model;                      /**< blazekit_model for the built-in networks; default FULL */
    int32_t thread_count;               /**< 1 … 64 threads per inference; default 1 */
    int32_t num_poses;                  /**< > 0; default 1 */
    float min_pose_detection_confidence;   /**< [0, 1]; default 0.5 */
    float min_pose_presence_confidence;    /**< [0, 1]; default 0.5 */
    float min_tracking_confidence;         /**< [0, 1]; default 0.5 */
    int32_t output_segmentation_masks;     /**< non-zero: one mask per pose; default 0 */
    /** Required in LIVE_STREAM mode, must be NULL in the others. */
    blazekit_pose_result_callback result_callback;
    void *user_data;                    /**< passed to result_callback */
    /* Since 0.2. */
    /** Non-zero: BlazeKit's accurate mode (not in MediaPipe), the same networks driven to find small,
     *  crowded and unusual people and to mark guessed landmarks, at a higher cost (README, "Accurate
     *  mode"). 0, the default, gives MediaPipe's results. */
    int32_t accurate_mode;
    /** With accurate_mode: the smallest person height, in pixels, the tiled search looks for; >= 32,
     *  default 120. Smaller costs more tiles. */
    int32_t accurate_min_person_height;
    /** With accurate_mode: parts to switch off, comma-separated: tiles, rotations, zoom-out, zoom-in,
     *  refine, flip, masked-retry. NULL or "" (the default) keeps them all. Read during create. */
    const char *accurate_off;
    /* Since 0.3. */
    /** Non-zero: MediaPipe's legacy Solutions graph (mp.solutions.pose) instead of the Tasks graph: one
     *  person (num_poses must be 1), its filters and mask smoothing. min_pose_presence_confidence is then
     *  mp.solutions' min_tracking_confidence; min_tracking_confidence is unused. IMAGE mode is
     *  static_image_mode. Default 0. */
    int32_t legacy_solution;
    /** With legacy_solution, in VIDEO and LIVE_STREAM mode: smooth_landmarks; default 1. */
    int32_t smooth_landmarks;
    /** With legacy_solution, in VIDEO and LIVE_STREAM mode: smooth_segmentation; default 1. */
    int32_t smooth_segmentation;
    /** With legacy_solution: non-zero (the default) times the filters 33 333 µs a frame, as mp.solutions'
     *  process() does, whatever the timestamps; 0 uses the timestamps passed. */
    int32_t solution_clock;
    /* Since 0.4. Identities across frames (BlazeKit's addition; blazekit_pose_result's `ids`). */
    /** VIDEO and LIVE_STREAM: how many frames in a row a person may go unseen and keep its ID; >= 0,
     *  default 45. */
    int32_t identity_max_absent_frames;
    /** VIDEO and LIVE_STREAM: the lowest similarity (landmarks, box overlap and motion; README
     *  "Identities") at which a pose continues an ID; [0, 1], default 0.2. */
    float identity_min_similarity;
    /* Since 0.6. */
    /** Non-zero: create plans the networks' kernels by fixed rules instead of timing the candidates on this
     *  machine (BlazeKit's BaseOptions.kernelPlanning = .fixed): a quicker create, the same kernels on every
     *  run, results identical bit for bit. 0, the default, times them. */
    int32_t fixed_plan;
    /* Since 0.7. */
    /** A directory (created if missing) where create keeps the timed kernel choices, one file per network, CPU
     *  and thread count, and plans later landmarkers from them without timing (BaseOptions.kernelPlanning =
     *  .cached): a quicker create after the first, the same kernels, results identical bit for bit. A damaged
     *  or foreign file there is timed again and replaced. NULL, the default, keeps nothing. With fixed_plan
     *  non-zero, or an empty string, create returns INVALID_OPTION naming the field; a directory that cannot be
     *  written, also INVALID_OPTION. Read during create only. */
    const char *plan_cache_dir;
} blazekit_pose_landmarker_options;

/** Options of a hand landmarker; same rules as blazekit_pose_landmarker_options. */
typedef struct blazekit_hand_landmarker_options {
    size_t struct_size;
    const char *model_asset_path;
    const void *model_asset_buffer;
    size_t model_asset_buffer_size;
    int32_t running_mode;
    int32_t model;
    int32_t thread_count;
    int32_t num_hands;                  /**< > 0; default 1 */
    float min_hand_detection_confidence;   /**< [0, 1]; default 0.5 */
    float min_hand_presence_confidence;    /**< [0, 1]; default 0.5 */
    float min_tracking_confidence;         /**< [0, 1]; default 0.5 */
    blazekit_hand_result_callback result_callback;
    void *user_data;
    /* Since 0.2. */
    /** Non-zero: BlazeKit's accurate mode for hands (not in MediaPipe): the palm detector over tiles, for
     *  hands too small for its whole-frame view, and flip averaging. 0, the default, gives MediaPipe's results. */
    int32_t accurate_mode;
    /** With accurate_mode: the smallest hand (pixels, the longer side of its landmarks' box) the tiled
     *  search looks for; >= 24, default 80. */
    int32_t accurate_min_hand_size;
    /** With accurate_mode: parts to switch off, comma-separated: tiles, flip. NULL or "" for none. */
    const char *accurate_off;
    /** With accurate_mode: parts to switch on, comma-separated: refine. NULL or "" for none. */
    const char *accurate_on;
    /* Since 0.3. */
    /** Non-zero: MediaPipe's legacy Solutions graph (mp.solutions.hands) instead of the Tasks graph: its
     *  palm regions and tracking, no deduplication, and its handedness labels ("Left" for index 0, meant
     *  for mirrored images). min_hand_presence_confidence is then mp.solutions' min_tracking_confidence;
     *  min_tracking_confidence is unused. Default 0. */
    int32_t legacy_solution;
    /* Since 0.4. Identities across frames (BlazeKit's addition; blazekit_hand_result's `ids`). */
    /** As in blazekit_pose_landmarker_options; default 45. */
    int32_t identity_max_absent_frames;
    /** As in blazekit_pose_landmarker_options; default 0.2. */
    float identity_min_similarity;
    /** VIDEO and LIVE_STREAM, non-zero: each hand's handedness is its track's vote over the frames so far
     *  (the score stays this frame's probability of that label) instead of the frame's own label.
     *  Default 0. */
    int32_t vote_handedness;
    /* Since 0.6. */
    /** As in blazekit_pose_landmarker_options; default 0. */
    int32_t fixed_plan;
    /* Since 0.7. */
    /** As in blazekit_pose_landmarker_options; default NULL. */
    const char *plan_cache_dir;
} blazekit_hand_landmarker_options;

/** Sets struct_size and every default in the caller's struct of `size` bytes, writing nothing beyond them; pass
 *  sizeof *options, as the macro blazekit_pose_landmarker_options_init does. A program built with an older header
 *  gets that version's struct, and create uses defaults for the fields it lacks. INVALID_ARGUMENT for NULL, a size
 *  below sizeof(size_t), or one larger than this library's struct (a header newer than the library). Thread-safe.
 *  Since 0.8. */
blazekit_status blazekit_pose_landmarker_options_init_sized(blazekit_pose_landmarker_options *options, size_t size);
/** The entry point of programs built with the 0.1–0.7 headers: as _init_sized with the 0.7 struct's size, which it
 *  keeps in later versions (a program built with an older header whose struct was smaller must be rebuilt). Returns
 *  INVALID_ARGUMENT for NULL. Thread-safe. */
blazekit_status blazekit_pose_landmarker_options_init(blazekit_pose_landmarker_options *options);
/** Sets struct_size and every default: blazekit_pose_landmarker_options_init_sized with sizeof *(options). */
#define blazekit_pose_landmarker_options_init(options) \
    blazekit_pose_landmarker_options_init_sized((options), sizeof *(options))
/** Sets struct_size and every default in the caller's struct of `size` bytes, writing nothing beyond them; pass
 *  sizeof *options, as the macro blazekit_hand_landmarker_options_init does. A program built with an older header
 *  gets that version's struct, and create uses defaults for the fields it lacks. INVALID_ARGUMENT for NULL, a size
 *  below sizeof(size_t), or one larger than this library's struct (a header newer than the library). Thread-safe.
 *  Since 0.8. */
blazekit_status blazekit_hand_landmarker_options_init_sized(blazekit_hand_landmarker_options *options, size_t size);
/** The entry point of programs built with the 0.1–0.7 headers: as _init_sized with the 0.7 struct's size, which it
 *  keeps in later versions (a program built with an older header whose struct was smaller must be rebuilt). Returns
 *  INVALID_ARGUMENT for NULL. Thread-safe. */
blazekit_status blazekit_hand_landmarker_options_init(blazekit_hand_landmarker_options *options);
/** Sets struct_size and every default: blazekit_hand_landmarker_options_init_sized with sizeof *(options). */
#define blazekit_hand_landmarker_options_init(options) \
    blazekit_hand_landmarker_options_init_sized((options), sizeof *(options))

/* ---------------------------------------------------------------------------------------------- */
/* Landmarkers                                                                                     */
/* ---------------------------------------------------------------------------------------------- */

typedef struct blazekit_pose_landmarker blazekit_pose_landmarker;
typedef struct blazekit_hand_landmarker blazekit_hand_landmarker;

/** Validates `options`, loads the model and plans the networks; *out is the new landmarker (NULL on
 *  failure). Errors: INVALID_ARGUMENT (NULL pointers, struct_size), INVALID_OPTION (the option named),
 *  MODEL (the file or buffer named). Thread-safe. */
blazekit_status blazekit_pose_landmarker_create(const blazekit_pose_landmarker_options *options,
                                                blazekit_pose_landmarker **out);
/** As blazekit_pose_landmarker_create, for hands. Thread-safe. */
blazekit_status blazekit_hand_landmarker_create(const blazekit_hand_landmarker_options *options,
                                                blazekit_hand_landmarker **out);

/** IMAGE mode: the poses in one photo; *out receives a result to free (NULL on failure). Thread-safe;
 *  calls on one landmarker are serialized. Blocks the calling thread for the inference. */
blazekit_status blazekit_pose_landmarker_detect(blazekit_pose_landmarker *landmarker, const blazekit_image *image,
                                                blazekit_pose_result **out);
/** VIDEO mode: the next frame, tracked from the previous ones. timestamp_ms must be greater than every
 *  earlier timestamp given to this landmarker (TIMESTAMP otherwise). Thread-safe; serialized. */
blazekit_status blazekit_pose_landmarker_detect_for_video(blazekit_pose_landmarker *landmarker,
                                                          const blazekit_image *image, int64_t timestamp_ms,
                                                          blazekit_pose_result **out);
/** LIVE_STREAM mode: copies the frame, queues it and returns at once; the result goes to the options'
 *  result_callback. While a frame is processed, a newer frame replaces the one waiting (which gets no
 *  callback). timestamp_ms must increase strictly. Thread-safe. */
blazekit_status blazekit_pose_landmarker_detect_async(blazekit_pose_landmarker *landmarker,
                                                      const blazekit_image *image, int64_t timestamp_ms);
/** Releases the networks; waits for a live-stream frame being processed; later calls on the landmarker
 *  return CLOSED. Closing twice is fine. The handle itself stays valid until _destroy. Thread-safe
 *  (also from the landmarker's own result callback). */
blazekit_status blazekit_pose_landmarker_close(blazekit_pose_landmarker *landmarker);
/** Closes if needed and frees the handle. NULL is a no-op. Not to be called while another thread uses
 *  the landmarker (its own result callback may call it); the handle is invalid afterwards. */
void blazekit_pose_landmarker_destroy(blazekit_pose_landmarker *landmarker);

/** As blazekit_pose_landmarker_detect, for hands. */
blazekit_status blazekit_hand_landmarker_detect(blazekit_hand_landmarker *landmarker, const blazekit_image *image,
                                                blazekit_hand_result **out);
/** As blazekit_pose_landmarker_detect_for_video, for hands. */
blazekit_status blazekit_hand_landmarker_detect_for_video(blazekit_hand_landmarker *landmarker,
                                                          const blazekit_image *image, int64_t timestamp_ms,
                                                          blazekit_hand_result **out);
/** As blazekit_pose_landmarker_detect_async, for hands. */
blazekit_status blazekit_hand_landmarker_detect_async(blazekit_hand_landmarker *landmarker,
                                                      const blazekit_image *image, int64_t timestamp_ms);
/** As blazekit_pose_landmarker_close, for hands. */
blazekit_status blazekit_hand_landmarker_close(blazekit_hand_landmarker *landmarker);
/** As blazekit_pose_landmarker_destroy, for hands. */
void blazekit_hand_landmarker_destroy(blazekit_hand_landmarker *landmarker);

/* ---------------------------------------------------------------------------------------------- */
/* Holistic landmarker (since 0.5)                                                                 */
/* ---------------------------------------------------------------------------------------------- */

/** What a holistic landmarker finds in one image: one person's pose, the two hands found from it and the face
 *  mesh, as MediaPipe's legacy Holistic graph (mp.solutions.holistic) finds them, under the names of MediaPipe
 *  Tasks' HolisticLandmarkerResult. A part not found has count 0 and NULL arrays (no pose: nothing at all).
 *  Owned by the library; free with blazekit_holistic_result_free. */
typedef struct blazekit_holistic_result {
    size_t struct_size;
    int64_t timestamp_ms;                       /**< 0 in image mode */
    size_t face_landmark_count;                 /**< 0, 468, or 478 with refine_face_landmarks (the irises last) */
    const blazekit_landmark *face_landmarks;    /**< x, y, z only */
    size_t pose_landmark_count;                 /**< 0 or 33 */
    const blazekit_landmark *pose_landmarks;    /**< with visibility and presence */
    const blazekit_landmark *pose_world_landmarks;  /**< pose_landmark_count, metres, origin between the hips */
    size_t left_hand_landmark_count;            /**< 0 or 21: the person's left hand (placed by pose landmarks 15, 17, 19) */
    const blazekit_landmark *left_hand_landmarks;
    const blazekit_landmark *left_hand_world_landmarks;   /**< left_hand_landmark_count, metres */
    size_t right_hand_landmark_count;           /**< 0 or 21: the person's right hand (pose landmarks 16, 18, 20) */
    const blazekit_landmark *right_hand_landmarks;
    const blazekit_landmark *right_hand_world_landmarks;  /**< right_hand_landmark_count, metres */
    /** The person mask at the image's size with output_segmentation_mask when a pose was found; else NULL. */
    const blazekit_mask *segmentation_mask;
} blazekit_holistic_result;

/** Frees a result and every array it owns. NULL is a no-op. Thread-safe (any thread, once). */
void blazekit_holistic_result_free(blazekit_holistic_result *result);

/** Live-stream result of a holistic landmarker; same rules as blazekit_pose_result_callback. */
typedef void (*blazekit_holistic_result_callback)(void *user_data, int32_t status, const char *error_message,
                                                  const blazekit_holistic_result *result, int64_t timestamp_ms);

/** Options of a holistic landmarker: MediaPipe Tasks' HolisticLandmarkerOptions names, with the defaults of
 *  the legacy Holistic graph whose results it gives (confidences 0.5, suppression thresholds 0.3). How
 *  mp.solutions.holistic.Holistic's arguments map: static_image_mode True/False is running mode IMAGE/VIDEO;
 *  model_complexity 0/1 is `model` LITE/FULL, 2 a pose_landmark_heavy model as model_asset_path;
 *  min_detection_confidence is min_pose_detection_confidence; min_tracking_confidence is
 *  min_pose_landmarks_confidence; enable_segmentation is output_segmentation_mask; smooth_landmarks,
 *  smooth_segmentation and refine_face_landmarks are the fields of those names.
 *  Models: NULL path and buffer, the built-in networks (six: pose detector and landmarks, hand landmarks, hand
 *  re-crop, face detector, face mesh); a directory of converted models holding them under their built-in
 *  names; or a single pose landmark model (a converted .bkm as a path or model_asset_buffer, or a MediaPipe
 *  .tflite path such as pose_landmark_heavy.tflite) run with the other built-in networks. Otherwise as
 *  blazekit_pose_landmarker_options. */
typedef struct blazekit_holistic_landmarker_options {
    size_t struct_size;
    const char *model_asset_path;
    const void *model_asset_buffer;
    size_t model_asset_buffer_size;
    int32_t running_mode;                     /**< blazekit_running_mode; default IMAGE */
    int32_t model;                            /**< the built-in pose landmark network, blazekit_model; default FULL */
    int32_t thread_count;                     /**< 1 … 64 threads per inference; default 1 */
    float min_face_detection_confidence;      /**< [0, 1]; default 0.5: the face detector inside the region from the pose */
    float min_face_suppression_threshold;     /**< [0, 1]; default 0.3: IoU merging overlapping face detections */
    float min_face_landmarks_confidence;      /**< [0, 1]; default 0.5: the face mesh's presence */
    float min_pose_detection_confidence;      /**< [0, 1]; default 0.5 */
    float min_pose_suppression_threshold;     /**< [0, 1]; default 0.3 */
    float min_pose_landmarks_confidence;      /**< [0, 1]; default 0.5: the pose landmarks' presence */
    float min_hand_landmarks_confidence;      /**< [0, 1]; default 0.5: each hand's presence */
    int32_t output_segmentation_mask;         /**< non-zero: the person mask; default 0 */
    int32_t refine_face_landmarks;            /**< non-zero: the attention face mesh, 478 points with the irises; default 0 */
    int32_t smooth_landmarks;                 /**< VIDEO and LIVE_STREAM: filter the pose across frames; default 1 */
    int32_t smooth_segmentation;              /**< VIDEO and LIVE_STREAM: blend the mask with the previous one; default 1 */
    /** Non-zero (the default) times the pose filters 33 333 µs a frame, as mp.solutions' process() does,
     *  whatever the timestamps; 0 uses the timestamps passed. */
    int32_t solution_clock;
    /** Required in LIVE_STREAM mode, must be NULL in the others. */
    blazekit_holistic_result_callback result_callback;
    void *user_data;                          /**< passed to result_callback */
    /* Since 0.6. */
    /** As in blazekit_pose_landmarker_options; default 0. */
    int32_t fixed_plan;
    /* Since 0.7. */
    /** As in blazekit_pose_landmarker_options; default NULL. */
    const char *plan_cache_dir;
} blazekit_holistic_landmarker_options;

/** Sets struct_size and every default in the caller's struct of `size` bytes, writing nothing beyond them; pass
 *  sizeof *options, as the macro blazekit_holistic_landmarker_options_init does. A program built with an older header
 *  gets that version's struct, and create uses defaults for the fields it lacks. INVALID_ARGUMENT for NULL, a size
 *  below sizeof(size_t), or one larger than this library's struct (a header newer than the library). Thread-safe.
 *  Since 0.8. */
blazekit_status blazekit_holistic_landmarker_options_init_sized(blazekit_holistic_landmarker_options *options, size_t size);
/** The entry point of programs built with the 0.1–0.7 headers: as _init_sized with the 0.7 struct's size, which it
 *  keeps in later versions (a program built with an older header whose struct was smaller must be rebuilt). Returns
 *  INVALID_ARGUMENT for NULL. Thread-safe. */
blazekit_status blazekit_holistic_landmarker_options_init(blazekit_holistic_landmarker_options *options);
/** Sets struct_size and every default: blazekit_holistic_landmarker_options_init_sized with sizeof *(options). */
#define blazekit_holistic_landmarker_options_init(options) \
    blazekit_holistic_landmarker_options_init_sized((options), sizeof *(options))

typedef struct blazekit_holistic_landmarker blazekit_holistic_landmarker;

/** As blazekit_pose_landmarker_create, for holistic landmarks. Thread-safe. */
blazekit_status blazekit_holistic_landmarker_create(const blazekit_holistic_landmarker_options *options,
                                                    blazekit_holistic_landmarker **out);
/** As blazekit_pose_landmarker_detect, for holistic landmarks. Image mode remembers nothing between images. */
blazekit_status blazekit_holistic_landmarker_detect(blazekit_holistic_landmarker *landmarker, const blazekit_image *image,
                                                    blazekit_holistic_result **out);
/** As blazekit_pose_landmarker_detect_for_video: the pose, hands and face tracked from the previous frame. */
blazekit_status blazekit_holistic_landmarker_detect_for_video(blazekit_holistic_landmarker *landmarker,
                                                              const blazekit_image *image, int64_t timestamp_ms,
                                                              blazekit_holistic_result **out);
/** As blazekit_pose_landmarker_detect_async, for holistic landmarks. */
blazekit_status blazekit_holistic_landmarker_detect_async(blazekit_holistic_landmarker *landmarker,
                                                          const blazekit_image *image, int64_t timestamp_ms);
/** As blazekit_pose_landmarker_close, for holistic landmarks. */
blazekit_status blazekit_holistic_landmarker_close(blazekit_holistic_landmarker *landmarker);
/** As blazekit_pose_landmarker_destroy, for holistic landmarks. */
void blazekit_holistic_landmarker_destroy(blazekit_holistic_landmarker *landmarker);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* BLAZEKIT_H */
