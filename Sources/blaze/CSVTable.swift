import Foundation

/// A long table written as CSV instead of JSON lines (`--format csv`): a header line, then the rows each
/// result gives. Each output (standard output, or each `--output-dir` file, named `<input>.csv`) starts with
/// the header. An input or frame that fails is reported on standard error (`error: NAME: MESSAGE`) rather
/// than in the table, and the exit status is 1, as with JSON lines.
struct CSVTable<Result> {
    /// The header's column names.
    var columns: [String]
    /// Appends a result's rows.
    var rows: (Result, FrameOrigin, inout CSVText) throws -> Void

    /// The header line.
    var header: [UInt8] { Array((columns.map(CSVText.field).joined(separator: ",") + "\n").utf8) }

    /// The rows of one result, as bytes.
    func rows(for result: Result, origin: FrameOrigin) throws -> [UInt8] {
        var text = CSVText()
        try rows(result, origin, &text)
        return text.bytes
    }
}

/// CSV text being written (RFC 4180, `\n` line ends).
struct CSVText {
    private(set) var bytes: [UInt8] = []

    init(capacity: Int = 1 << 15) { bytes.reserveCapacity(capacity) }

    /// `text` as one field: quoted, with quotes doubled, when it holds a comma, a quote or a line break.
    static func field(_ text: String) -> String {
        guard text.contains(where: { $0 == "," || $0 == "\"" || $0.isNewline }) else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// Text already laid out as fields and separators.
    mutating func append(_ text: String) {
        bytes.append(contentsOf: text.utf8)
    }

    /// A number spelled as the JSON lines spell it (``JSONBytes/spelling(_:)``); `NaN`, `inf` and `-inf`
    /// otherwise, as pandas and NumPy read them.
    mutating func number(_ value: Float) {
        let text = value.isNaN ? "NaN" : value.isInfinite ? (value < 0 ? "-inf" : "inf") : JSONBytes.spelling(value)
        bytes.append(contentsOf: text.utf8)
    }
}
