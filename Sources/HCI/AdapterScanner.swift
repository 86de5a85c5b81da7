import Synchronization

/// `--adapter`: owns the scan on one adapter and hands each LE Meta event to a handler,
/// reopening the adapter with backoff when it goes down or away.
public final class AdapterScanner: Sendable {
    public let adapter: AdapterName
    public let parameters: ScanParameters
    private let cell: StateCell
    private let wakeup: Wakeup
    private let stopping = Atomic<Bool>(false)

    /// - Parameter onState: called on the reader's thread at each change of state (log it).
    public init(adapter: String, mode: ScanMode = .passive,
                onState: (@Sendable (SourceState) -> Void)? = nil) throws(HCIError) {
        self.adapter = try AdapterName(adapter)
        parameters = ScanParameters(mode: mode)
        cell = StateCell(observer: onState)
        wakeup = try Wakeup()
    }

    public var state: SourceState { cell.current }

    /// Scans until `stop()`, calling `handler` on this thread with each LE Meta event as an
    /// H4 packet (valid only during the call) and the Unix time it was read. Throws only an
    /// error that waiting will not fix; everything else is retried.
    public func run(_ handler: (UnsafeRawBufferPointer, Double) -> Void) throws(HCIError) {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 2048, alignment: 8)
        defer { buffer.deallocate() }
        let watcher = try openWatcher()
        var backoff = Backoff()
        var retryAt = 0.0
        while !stopping.load(ordering: .relaxed) {
            do throws(HCIError) {
                let index = try resolve()
                let session = try ScanSession(index: index, parameters: parameters, buffer: buffer)
                cell.set(.scanning(extended: session.extended, mode: parameters.mode))
                backoff.reset()
                retryAt = 0
                do throws(HCIError) { try read(session, watcher, buffer, handler) } catch {
                    _ = session.close()
                    throw error
                }
                cell.set(.stopped(session.close()))
                return
            } catch where error.isPermanent {
                cell.set(.failed(reason: error.description))
                throw error
            } catch {
                // A retry the kernel's news brought forward that still failed keeps the
                // deadline it had: news about other adapters must not inflate the backoff.
                if retryAt <= unixNow() {
                    let delay = backoff.delay()
                    retryAt = unixNow() + delay
                    cell.set(.down(reason: error.description, retryIn: delay))
                }
                try waitForRetry(until: retryAt, watcher, buffer)
            }
        }
        cell.set(.stopped(nil))
    }

    /// The socket that hears the kernel's device events (adapters added, removed, up, down);
    /// failing to open it fails `run`.
    private func openWatcher() throws(HCIError) -> HCISocket {
        do throws(HCIError) {
            let watcher = try HCISocket.raw(index: nil)
            try watcher.setFilter(.deviceEvents)
            return watcher
        } catch {
            cell.set(.failed(reason: error.description))
            throw error
        }
    }

    /// Asks `run` to return soon; from any thread.
    public func stop() {
        stopping.store(true, ordering: .relaxed)
        wakeup.signal()
    }

    private func resolve() throws(HCIError) -> UInt16 {
        switch adapter {
        case let .index(n): n
        case let .address(a): try adapterIndex(address: a)
        }
    }

    /// Reads until stopped; throws when the adapter goes down or away.
    private func read(_ session: ScanSession, _ watcher: HCISocket, _ buffer: UnsafeMutableRawBufferPointer,
                      _ handler: (UnsafeRawBufferPointer, Double) -> Void) throws(HCIError) {
        var poller = Poller([wakeup.readEnd, watcher.fd, session.socket.fd])
        while !stopping.load(ordering: .relaxed) {
            guard try poller.wait(milliseconds: 1000) else { continue }
            if poller.ready(1) { try checkAdapter(session.index, watcher, buffer) }
            if poller.ready(2) {
                let n = try session.socket.receive(into: buffer)
                if n > 2, buffer[1] == HCIPacket.leMetaEvent { handler(UnsafeRawBufferPointer(rebasing: buffer[..<n]), unixNow()) }
            }
        }
    }

    private func checkAdapter(_ index: UInt16, _ watcher: HCISocket, _ buffer: UnsafeMutableRawBufferPointer) throws(HCIError) {
        let n = try watcher.receive(into: buffer)
        guard let event = AdapterEvent(h4: UnsafeRawBufferPointer(rebasing: buffer[..<n])), event.index == index else { return }
        if event.kind == .down || event.kind == .unregistered {
            throw HCIError(.adapterGone, "hci\(index)")
        }
    }

    /// Sleeps until `deadline`, or less when the kernel says an adapter came up or was added
    /// (it may be ours), or until stopped.
    private func waitForRetry(until deadline: Double, _ watcher: HCISocket, _ buffer: UnsafeMutableRawBufferPointer) throws(HCIError) {
        var poller = Poller([wakeup.readEnd, watcher.fd])
        while !stopping.load(ordering: .relaxed) {
            let left = Int32((deadline - unixNow()) * 1000)
            guard left > 0, try poller.wait(milliseconds: left) else { return }
            if poller.ready(1) {
                let n = try watcher.receive(into: buffer)
                if let event = AdapterEvent(h4: UnsafeRawBufferPointer(rebasing: buffer[..<n])),
                   event.kind == .up || event.kind == .registered { return }
            }
        }
    }
}
