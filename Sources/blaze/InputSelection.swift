import ArgumentParser
import Foundation

/// Which files a run processes: the named files, directories expanded one level deep, the lines of
/// `--inputs-from`, and, with `--shard I/N`, the I-th of N contiguous slices of them sorted by path.
struct InputSelection {
    /// File name endings a directory is searched for (case-insensitive).
    static let imageExtensions = ["png", "jpg", "jpeg"]
    static let videoExtensions = ["mp4", "m4v", "mov", "mkv", "webm", "avi"]

    /// A shard: `index` of `count`, from 0.
    struct Shard: Equatable {
        var index: Int
        var count: Int

        /// Parses `I/N` (0 ≤ I < N) or `auto/N`, which takes I from the job-array variable that is set:
        /// `JOB_COMPLETION_INDEX` (Kubernetes Indexed Job), `SLURM_ARRAY_TASK_ID` (less
        /// `SLURM_ARRAY_TASK_MIN`, so `--array=1-N` works too) or `AWS_BATCH_JOB_ARRAY_INDEX`.
        static func parse(_ text: String, environment: [String: String]) throws -> Shard {
            let parts = text.split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count == 2, let count = Int(parts[1]), count >= 1 else {
                throw ValidationError("--shard expects I/N or auto/N with N ≥ 1, got '\(text)'")
            }
            let index: Int
            if parts[0] == "auto" {
                if let value = environment["JOB_COMPLETION_INDEX"] {
                    index = try number(value, "JOB_COMPLETION_INDEX")
                } else if let value = environment["SLURM_ARRAY_TASK_ID"] {
                    let minimum = try environment["SLURM_ARRAY_TASK_MIN"].map { try number($0, "SLURM_ARRAY_TASK_MIN") } ?? 0
                    index = try number(value, "SLURM_ARRAY_TASK_ID") - minimum
                } else if let value = environment["AWS_BATCH_JOB_ARRAY_INDEX"] {
                    index = try number(value, "AWS_BATCH_JOB_ARRAY_INDEX")
                } else {
                    throw ValidationError("--shard auto/\(count): none of JOB_COMPLETION_INDEX, SLURM_ARRAY_TASK_ID or "
                                          + "AWS_BATCH_JOB_ARRAY_INDEX is set; use --shard I/\(count)")
                }
            } else {
                index = try number(String(parts[0]), "--shard index")
            }
            guard (0..<count).contains(index) else {
                throw ValidationError("--shard \(text): shard index \(index) is out of range 0...\(count - 1)")
            }
            return Shard(index: index, count: count)
        }

        private static func number(_ text: String, _ name: String) throws -> Int {
            guard let value = Int(text.trimmingCharacters(in: .whitespaces)) else {
                throw ValidationError("\(name) must be a whole number, got '\(text)'")
            }
            return value
        }

        /// This shard's contiguous slice of `items`: slices of sizes differing by at most one, in order,
        /// so the shards' outputs concatenated in shard order equal one run's.
        func slice<T>(_ items: [T]) -> ArraySlice<T> {
            let lower = items.count * index / count, upper = items.count * (index + 1) / count
            return items[lower..<upper]
        }
    }

    /// The files to process, in order. Without a shard: the order given, each directory's entries sorted
    /// by name. With a shard: all of them sorted by path, then this shard's slice.
    static func files(arguments: [String], inputsFrom manifest: String?, shard: Shard?) throws -> [String] {
        var named = arguments
        if let manifest {
            let text: String
            do {
                text = manifest == "-" ? String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
                    : try String(contentsOfFile: manifest, encoding: .utf8)
            } catch {
                throw ValidationError("--inputs-from \(manifest): cannot read the manifest: \(error.localizedDescription)")
            }
            named += text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
                .filter { !$0.isEmpty && !$0.hasPrefix("#") }
        }
        var files: [String] = []
        for path in named {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
                let wanted = Set(imageExtensions + videoExtensions)
                let names = try FileManager.default.contentsOfDirectory(atPath: path)
                    .filter { wanted.contains(($0 as NSString).pathExtension.lowercased()) && !$0.hasPrefix(".") }.sorted()
                files += names.map { URL(fileURLWithPath: path).appendingPathComponent($0).path }
            } else {
                files.append(path)
            }
        }
        guard let shard else { return files }
        return Array(shard.slice(files.sorted()))
    }

    /// The per-input output file names for `--output-dir` (`<file name>.jsonl`, or `.csv` for a table); throws
    /// when two inputs would write the same file.
    static func outputNames(for files: [String], suffix: String = ".jsonl") throws -> [String] {
        var seen: [String: String] = [:]
        return try files.map { path in
            let name = URL(fileURLWithPath: path).lastPathComponent + suffix
            if let other = seen[name], other != path {
                throw ValidationError("--output-dir: \(other) and \(path) would both write \(name); give inputs distinct file names")
            }
            seen[name] = path
            return name
        }
    }
}
