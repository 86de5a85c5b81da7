import BLE
import Options
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// `--stdin`: H4 packets as hex, one per line, or `hcidump -R` style where a packet starts
/// with `>` or `<` and continues on indented lines. A line that is not hex is counted and
/// skipped (with the packet it belonged to).
public final class StdinSource: ReportSource {
    public let name = "stdin"
    private let stopped = Atomic<Bool>(false)

    public init() {}

    public func run(_ sink: PacketSink) throws {
        var assembler = HexPacketAssembler()
        var warned = false, warnedLong = false
        var reader = LineReader.descriptor(0, limit: LineReader.h4LineLimit)
        reader.forEach { line in
            let ok: Bool
            switch line {
            case .text(let text):
                ok = assembler.feed(text) { packet in packet.withUnsafeBytes { sink.packet(h4: $0, at: unixTime()) } }
            case .tooLong(let bytes):
                assembler.discard()
                sink.malformed()
                if !warnedLong {
                    printError("whereabouts-edge: skipped a line of \(bytes) bytes on stdin, longer than any H4 packet "
                               + "(limit \(LineReader.h4LineLimit)); further ones are only counted")
                }
                warnedLong = true
                ok = true
            }
            if !ok {
                sink.malformed()
                if !warned { printError("whereabouts-edge: skipping a line on stdin that is not H4 hex (further ones are only counted)") }
                warned = true
            }
            return !stopped.load(ordering: .relaxed)
        }
        if let reason = reader.failureReason { throw SourceError("reading standard input failed: \(reason)") }
        assembler.finish { packet in packet.withUnsafeBytes { sink.packet(h4: $0, at: unixTime()) } }
    }

    public func stop() { stopped.store(true, ordering: .relaxed) }
}

/// Turns hex lines into packets. Pure, so it is tested on its own.
struct HexPacketAssembler {
    private var pending: [UInt8] = []

    /// Feeds one line; calls `emit` for each packet it completes. Returns false for a line
    /// that is not hex, which also discards the packet in progress.
    mutating func feed(_ line: UnsafeBufferPointer<UInt8>, emit: ([UInt8]) -> Void) -> Bool {
        var text = line[...]
        while let last = text.last, last == 0x0A || last == 0x0D || last == 0x20 || last == 0x09 { text = text.dropLast() }
        guard let first = text.first else { return true }
        let continuation = first == 0x20 || first == 0x09
        let marked = first == UInt8(ascii: ">") || first == UInt8(ascii: "<")
        if !continuation { finish(emit) }
        if marked { text = text.dropFirst() }
        guard appendHex(text) else { pending.removeAll(); return false }
        if !continuation && !marked { finish(emit) }
        return true
    }

    /// Drops the packet in progress (its line was unreadable).
    mutating func discard() { pending.removeAll(keepingCapacity: true) }

    /// Emits the packet in progress, if any.
    mutating func finish(_ emit: ([UInt8]) -> Void) {
        guard !pending.isEmpty else { return }
        emit(pending)
        pending.removeAll(keepingCapacity: true)
    }

    private mutating func appendHex(_ text: Slice<UnsafeBufferPointer<UInt8>>) -> Bool {
        var high: UInt8?
        for c in text {
            if c == 0x20 || c == 0x09 || c == UInt8(ascii: ":") {
                guard high == nil else { return false }
                continue
            }
            guard let v = Hex.nibble(c) else { return false }
            if let h = high { pending.append(h << 4 | v); high = nil } else { high = v }
        }
        return high == nil
    }
}
