import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// `--monitor`: takes the LE Meta events of whatever is scanning (bluetoothd, another tool)
/// from the HCI monitor channel, sending no command — the mode that lives beside a running
/// `bluetoothd`.
public final class MonitorListener: Sendable {
    /// Only this controller's events, or every controller's.
    public let index: UInt16?
    private let cell: StateCell
    private let wakeup: Wakeup
    private let stopping = Atomic<Bool>(false)

    public init(index: UInt16? = nil, onState: (@Sendable (SourceState) -> Void)? = nil) throws(HCIError) {
        self.index = index
        cell = StateCell(observer: onState)
        wakeup = try Wakeup()
    }

    public var state: SourceState { cell.current }

    /// Listens until `stop()`, calling `handler` on this thread with each LE Meta event as an
    /// H4 packet (valid only during the call) and the Unix time it was read. Throws only an
    /// error that waiting will not fix (no `CAP_NET_RAW`, no Bluetooth in the kernel).
    public func run(_ handler: (UnsafeRawBufferPointer, Double) -> Void) throws(HCIError) {
        // Byte 0 is the H4 event type; the monitor payload is read in after it, so the
        // handler gets an H4 packet without a copy.
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 + 4096, alignment: 8)
        defer { buffer.deallocate() }
        buffer[0] = HCIPacket.event
        var backoff = Backoff()
        while !stopping.load(ordering: .relaxed) {
            cell.set(.opening)
            do throws(HCIError) {
                let socket = try HCISocket.monitor()
                cell.set(.listening)
                backoff.reset()
                try listen(socket, buffer, handler)
            } catch where error.isPermanent {
                cell.set(.failed(reason: error.description))
                throw error
            } catch {
                let delay = backoff.delay()
                cell.set(.down(reason: error.description, retryIn: delay))
                var poller = Poller([wakeup.readEnd])
                _ = try poller.wait(milliseconds: Int32(delay * 1000))
            }
        }
        cell.set(.stopped(nil))
    }

    public func stop() {
        stopping.store(true, ordering: .relaxed)
        wakeup.signal()
    }

    private func listen(_ socket: HCISocket, _ buffer: UnsafeMutableRawBufferPointer,
                        _ handler: (UnsafeRawBufferPointer, Double) -> Void) throws(HCIError) {
        let reader = MonitorReader(fd: socket.fd, payload: UnsafeMutableRawBufferPointer(rebasing: buffer[1...]))
        defer { reader.deallocate() }
        var poller = Poller([wakeup.readEnd, socket.fd])
        while !stopping.load(ordering: .relaxed) {
            guard try poller.wait(milliseconds: 1000), poller.ready(1) else { continue }
            guard let header = try reader.next(), header.opcode == MonitorHeader.eventPacket,
                  index == nil || header.index == index, header.length >= 2, buffer[1] == HCIPacket.leMetaEvent else { continue }
            handler(UnsafeRawBufferPointer(rebasing: buffer[...Int(header.length)]), unixNow())
        }
    }
}

/// Reads one monitor packet at a time with `recvmsg`: the header into a buffer of its own,
/// the payload straight into the caller's.
private struct MonitorReader {
    let fd: Int32
    let payload: UnsafeMutableRawBufferPointer
    let header = UnsafeMutableRawBufferPointer.allocate(byteCount: MonitorHeader.size, alignment: 2)
    let vectors = UnsafeMutablePointer<iovec>.allocate(capacity: 2)

    init(fd: Int32, payload: UnsafeMutableRawBufferPointer) {
        self.fd = fd
        self.payload = payload
        vectors[0] = iovec(iov_base: header.baseAddress, iov_len: header.count)
        vectors[1] = iovec(iov_base: payload.baseAddress, iov_len: payload.count)
    }

    func deallocate() {
        header.deallocate()
        vectors.deallocate()
    }

    /// The next packet's header, its payload in `payload`; `nil` when nothing complete was
    /// read (a truncated datagram is skipped, never trusted).
    func next() throws(HCIError) -> MonitorHeader? {
        var message = msghdr()
        message.msg_iov = vectors
        message.msg_iovlen = 2
        let n = recvmsg(fd, &message, 0)
        if n < 0 {
            if errno == EINTR || errno == EAGAIN { return nil }
            throw .system("monitor: read")
        }
        guard let h = MonitorHeader(UnsafeRawBufferPointer(header)), message.msg_flags & Int32(MSG_TRUNC) == 0,
              n == MonitorHeader.size + Int(h.length) else { return nil }
        return h
    }
}
