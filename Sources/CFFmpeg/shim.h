#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libswscale/swscale.h>
#include <libavutil/avutil.h>
#include <libavutil/display.h>
#include <libavutil/mastering_display_metadata.h>
#include <libavutil/imgutils.h>
#include <libavutil/opt.h>
#include <libavutil/error.h>

/* AVERROR(e) and AVERROR_EOF are macros Swift cannot import. */
static inline int blaze_averror(int e) { return AVERROR(e); }
static inline int blaze_averror_eof(void) { return AVERROR_EOF; }
static inline int blaze_averror_invaliddata(void) { return AVERROR_INVALIDDATA; }
static inline int64_t blaze_av_nopts_value(void) { return AV_NOPTS_VALUE; }
