/// Lines of a byte stream (standard input, a pipe, a file) in bounded memory.
///
/// A line longer than `limit` bytes is not kept: its bytes are discarded as they arrive and
/// it comes out as `.tooLong` once its newline (or the end of input) is reached, so an
/// endless line from a broken producer costs `limit` bytes, not all of memory, and the good
/// lines after it are still read. Pure: the caller supplies `read` (`read(2)` on a
/// descriptor, or bytes in memory in tests).
public struct LineReader {
    /// One line, without its newline; the bytes are valid only inside the callback.
    public enum Line {
        case text(UnsafeBufferPointer<UInt8>)
        /// A line over the limit, skipped; `bytes` is its length without the newline.
        case tooLong(bytes: Int)
    }

    /// The limit for H4 packets as hex lines (the edge's --stdin, `whereabouts decode`): a
    /// packet is at most 258 bytes, under 800 characters in hex even as a JSON line; anything
    /// far longer is a broken producer, skipped rather than held in memory.
    public static let h4LineLimit = 64 * 1024

    /// The longest line kept, in bytes (without its newline).
    public let limit: Int
    /// The error number of the read that failed (`read` returned its negation), nil while
    /// the input has not ended or ended at end of file.
    public private(set) var failure: Int32?
    /// Whether the input ended with a read error rather than end of file.
    public var failed: Bool { failure != nil }
    private let read: (UnsafeMutableRawBufferPointer) -> Int
    private var buffer: [UInt8]
    /// Unconsumed bytes are `buffer[start..<end]`; `buffer[start..<scanned]` holds no newline.
    private var start = 0, scanned = 0, end = 0
    /// Bytes of an over-long line discarded so far, while skipping to its newline.
    private var skipped: Int?

    /// - Parameter read: fills the buffer it is given and returns the bytes read, 0 at end of
    ///   input, or the negated error number on a read error (which ends the input). An error
    ///   number saved by `read` itself, before anything else can overwrite `errno`.
    public init(limit: Int, read: @escaping (UnsafeMutableRawBufferPointer) -> Int) {
        self.limit = max(limit, 1)
        self.read = read
        // One byte more than the limit, so a line of exactly `limit` bytes fits with its newline.
        buffer = [UInt8](repeating: 0, count: self.limit + 1)
    }

    /// Calls `body` with each line until the input ends or `body` returns false.
    public mutating func forEach(_ body: (Line) -> Bool) {
        while true {
            while let newline = nextNewline() {
                guard emitLine(endingAt: newline, body) else { return }
            }
            guard fill() else {
                // A line cut short by a failed read is not a line: dropped, not passed on whole.
                if failed { skipped = nil; start = end; return }
                if let skipped { self.skipped = nil; _ = body(.tooLong(bytes: skipped + end - start)) }
                else if start < end { _ = emitLine(endingAt: end, body) }
                return
            }
        }
    }

    /// The index of the next newline among the unconsumed bytes, scanning each byte once.
    private mutating func nextNewline() -> Int? {
        let (from, to) = (scanned, end)
        let found = buffer.withUnsafeBytes { Self.newline(in: $0, from: from, to: to) }
        scanned = found ?? end
        return found
    }

    /// The first `\n` in `bytes[from..<to]`, eight bytes at a time (what memchr does for
    /// getline): a byte-by-byte scan cost the edge 6 % more instructions on --stdin.
    static func newline(in bytes: UnsafeRawBufferPointer, from: Int, to: Int) -> Int? {
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        var i = from
        while i + 8 <= to {
            // A zero byte in `w` is a newline in the word (the classic has-zero-byte test).
            let w = bytes.loadUnaligned(fromByteOffset: i, as: UInt64.self) ^ (ones &* 0x0A)
            if (w &- ones) & ~w & highs != 0 { break }
            i += 8
        }
        while i < to {
            if bytes[i] == 0x0A { return i }
            i += 1
        }
        return nil
    }

    private mutating func emitLine(endingAt newline: Int, _ body: (Line) -> Bool) -> Bool {
        let from = start
        start = min(newline + 1, end)
        scanned = start
        if let skipped {
            self.skipped = nil
            return body(.tooLong(bytes: skipped + newline - from))
        }
        return buffer.withUnsafeBufferPointer { body(.text(UnsafeBufferPointer(rebasing: $0[from..<newline]))) }
    }

    /// Makes room and reads more; false at the end of input.
    private mutating func fill() -> Bool {
        if end - start > limit || skipped != nil {
            // The line in progress is over the limit: drop what is held, keep counting.
            skipped = (skipped ?? 0) + end - start
            start = 0; scanned = 0; end = 0
        } else if start > 0 {
            let held = end - start
            buffer.withUnsafeMutableBufferPointer { b in
                for i in 0..<held { b[i] = b[start + i] }
            }
            start = 0; scanned = held; end = held
        }
        let n = buffer.withUnsafeMutableBytes { read(UnsafeMutableRawBufferPointer(rebasing: $0[end...])) }
        if n < 0 { failure = n >= -Int(Int32.max) ? Int32(-n) : Int32.max }
        guard n > 0 else { return false }
        end += min(n, buffer.count - end)
        return true
    }
}
