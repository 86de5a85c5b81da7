internal import CMosquitto
import Dispatch
import Synchronization

/// Whether the network thread is paused for the event queue, and how often and how long it was.
final class Backpressure: Sendable {
    /// Set by the network thread while it waits; cleared by whoever wakes it.
    let paused = Atomic<Bool>(false)
    let resumed = DispatchSemaphore(value: 0)
    let pauses = Atomic<Int>(0)
    /// Microseconds paused, in all.
    let pausedMicros = Atomic<Int>(0)
}

// Backpressure: while too many received messages wait for the event queue, the network thread
// stops reading the socket. TCP's window then fills and the broker keeps what follows in its
// per-client queue (`max_queued_messages`), which exists for this, instead of this client
// shedding it. Writes (PUBACKs, publishes, PINGREQ) go on while paused.
extension MQTTClientCore {
    var pausesReading: Bool { options.pauseReadingAtMessages != nil || options.pauseReadingAtBytes != nil }

    /// Whether waiting messages reached a pause mark.
    private var mustPause: Bool {
        guard pausesReading else { return false }
        return pending.current >= options.pauseReadingAtMessages ?? .max
            || pendingBytes.current >= options.pauseReadingAtBytes ?? .max
    }

    /// Whether waiting messages fell to half of every pause mark.
    private var mayResume: Bool {
        pending.current <= (options.pauseReadingAtMessages ?? .max) / 2
            && pendingBytes.current <= (options.pauseReadingAtBytes ?? .max) / 2
    }

    /// One turn of the network loop: libmosquitto's own (wait, read a packet, write, keepalive)
    /// while the event queue keeps up; a paused turn, until it drains, when it does not.
    func loopTurn() -> Int32 {
        guard mustPause, state.withLock({ $0.stop }) == nil else { return mosquitto_loop(handle, 1000, 1) }
        return pausedTurn()
    }

    /// Writes and keeps the connection alive without reading, until half the pause mark is
    /// handled or a stop is asked for. Returns what a libmosquitto call failed with, if one did.
    private func pausedTurn() -> Int32 {
        let success = Int32(MOSQ_ERR_SUCCESS.rawValue)
        let started = monotonicSeconds()
        backpressure.pauses.add(1, ordering: .relaxed)
        defer {
            backpressure.paused.store(false, ordering: .relaxed)
            backpressure.pausedMicros.add(Int((monotonicSeconds() - started) * 1e6), ordering: .relaxed)
        }
        while !mayResume, state.withLock({ $0.stop }) == nil {
            var rc = mosquitto_loop_misc(handle)
            if rc == success, mosquitto_want_write(handle) { rc = mosquitto_loop_write(handle, 1) }
            guard rc == success else { return rc }
            backpressure.paused.store(true, ordering: .relaxed)
            // Woken by the queue once drained; the timeout bounds how late a publish made
            // meanwhile goes out (and covers a wake-up that came between the check and here).
            _ = backpressure.resumed.wait(timeout: .now() + .milliseconds(5))
        }
        return success
    }

    /// Called on the event queue after each message: wakes a paused network thread once the
    /// queue has drained to half the pause mark.
    func resumeReadingIfDrained() {
        guard pausesReading, backpressure.paused.load(ordering: .relaxed), mayResume else { return }
        if backpressure.paused.compareExchange(expected: true, desired: false, ordering: .relaxed).exchanged {
            backpressure.resumed.signal()
        }
    }

    var readPauses: (count: Int, seconds: Double) {
        (backpressure.pauses.load(ordering: .relaxed), Double(backpressure.pausedMicros.load(ordering: .relaxed)) / 1e6)
    }
}
