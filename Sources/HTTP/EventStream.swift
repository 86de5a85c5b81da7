#if canImport(Glibc)
import Glibc
#endif

/// A server-sent event stream to one client: a bounded queue of bytes that the producer fills
/// and the client's connection thread drains.
///
/// The producer never waits: `send` appends under a short lock and returns. A client that does
/// not read fast enough lets the queue reach `capacity`; the stream is then dropped (its
/// connection closed, the queue freed) instead of holding the producer or growing memory. A
/// browser's stream reconnects and starts again from a snapshot.
public final class EventStream: @unchecked Sendable {
    /// What became of one `send`.
    public enum Outcome: Equatable, Sendable {
        /// Queued for the client.
        case queued
        /// This send would have passed `capacity`: the stream is dropped now.
        case dropped
        /// The stream had ended before (closed, dropped, or the client left).
        case ended
    }

    private enum State { case open, closed, dropped, gone }

    /// Bytes the queue may hold before the client counts as too slow.
    public let capacity: Int
    /// Seconds of silence after which a comment line is sent, so that a client that left is
    /// noticed and proxies keep the connection.
    public let heartbeat: Double
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var buffer: [UInt8] = []
    private var head = 0
    private var state = State.open
    private var endHandlers: [@Sendable () -> Void] = []

    public init(capacity: Int = 2 << 20, heartbeat: Double = 5) {
        self.capacity = capacity
        self.heartbeat = heartbeat
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(condition, nil)
    }

    deinit {
        pthread_cond_destroy(condition); pthread_mutex_destroy(mutex)
        condition.deallocate(); mutex.deallocate()
    }

    /// Queues `bytes` for the client.
    @discardableResult
    public func send(_ bytes: UnsafeRawBufferPointer) -> Outcome {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        guard state == .open else { return .ended }
        let pending = buffer.count - head
        if pending + bytes.count > capacity {
            state = .dropped
            buffer = []
            head = 0
            pthread_cond_signal(condition)
            return .dropped
        }
        buffer.append(contentsOf: bytes)
        // The reader waits only on an empty queue: one wake-up per drain, not per event.
        if pending == 0 { pthread_cond_signal(condition) }
        return .queued
    }

    @discardableResult
    public func send(_ bytes: [UInt8]) -> Outcome { bytes.withUnsafeBytes { send($0) } }

    /// Ends the stream after what is queued (a server stopping).
    public func close() {
        pthread_mutex_lock(mutex)
        if state == .open { state = .closed }
        pthread_cond_signal(condition)
        pthread_mutex_unlock(mutex)
    }

    /// Whether sends still reach the client.
    public var isOpen: Bool {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return state == .open
    }

    /// Runs `handler` once the connection has ended, however it ended (at once if it has).
    public func onEnd(_ handler: @escaping @Sendable () -> Void) {
        pthread_mutex_lock(mutex)
        let ended = state == .gone
        if !ended { endHandlers.append(handler) }
        pthread_mutex_unlock(mutex)
        if ended { handler() }
    }

    /// The connection thread's read: waits up to `heartbeat` for bytes and copies at most
    /// `max` of them into `out`. Returns the count, -1 at the end of a closed stream, -2 for a
    /// dropped one (libmicrohttpd's end-of-stream and end-with-error).
    func read(into out: UnsafeMutableRawPointer, max: Int) -> Int {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        if state == .open && buffer.count == head {
            var deadline = timespec()
            clock_gettime(CLOCK_REALTIME, &deadline)
            let nanos = Int(deadline.tv_nsec) + Int(heartbeat * 1e9)
            deadline.tv_sec += nanos / 1_000_000_000
            deadline.tv_nsec = nanos % 1_000_000_000
            while state == .open && buffer.count == head {
                if pthread_cond_timedwait(condition, mutex, &deadline) == ETIMEDOUT { break }
            }
        }
        if state == .dropped { return -2 }
        let pending = buffer.count - head
        if pending == 0 {
            guard state == .open else { return -1 }
            return Self.copy(Self.keepAlive, into: out, max: max)
        }
        let n = min(pending, max)
        buffer.withUnsafeBytes { out.copyMemory(from: $0.baseAddress! + head, byteCount: n) }
        head += n
        if head == buffer.count {
            buffer.removeAll(keepingCapacity: buffer.capacity <= 1 << 16)
            head = 0
        } else if head >= 1 << 16 {
            buffer.removeFirst(head)
            head = 0
        }
        return n
    }

    /// The connection is gone (libmicrohttpd freed the response).
    func ended() {
        pthread_mutex_lock(mutex)
        state = .gone
        buffer = []
        head = 0
        let handlers = endHandlers
        endHandlers = []
        pthread_mutex_unlock(mutex)
        for h in handlers { h() }
    }

    /// An SSE comment: ignored by clients, proves the connection is alive.
    static let keepAlive = Array(":\n\n".utf8)

    private static func copy(_ bytes: [UInt8], into out: UnsafeMutableRawPointer, max: Int) -> Int {
        let n = min(bytes.count, max)
        bytes.withUnsafeBytes { out.copyMemory(from: $0.baseAddress!, byteCount: n) }
        return n
    }
}
