import CFFmpeg

/// FFmpeg's own messages on standard error ("error while decoding MB …", encoder statistics). FFmpeg
/// keeps one log level per process, so this is a process-wide setting: a program that owns its process
/// (such as the `blaze` CLI, whose error records already carry FFmpeg's message) may quiet it; a library
/// embedding BlazeVideo should leave it to the application.
public enum FFmpegLogLevel: Int32, Sendable {
    case quiet = -8, fatal = 8, error = 16, warning = 24, info = 32

    /// Sets FFmpeg's process-wide log level.
    public func apply() { av_log_set_level(rawValue) }
}
