#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A pthread mutex with two conditions on the monotonic clock: one the writer thread sleeps
/// on, one that `flush()` callers sleep on. Heap-allocated, since pthread objects must not move.
final class ConditionLock: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let work = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private let done = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    init() {
        pthread_mutex_init(mutex, nil)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(work, &attributes)
        pthread_cond_init(done, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(work)
        pthread_cond_destroy(done)
        pthread_mutex_destroy(mutex)
        work.deallocate()
        done.deallocate()
        mutex.deallocate()
    }

    func withLock<T>(_ body: () throws -> T) rethrows -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }

    /// With the lock held: sleeps until signalled or `deadline` (monotonic seconds).
    func waitForWork(until deadline: Double) { wait(work, until: deadline) }
    func waitForCommit(until deadline: Double) { wait(done, until: deadline) }
    func signalWork() { pthread_cond_signal(work) }
    func broadcastCommit() { pthread_cond_broadcast(done) }

    private func wait(_ condition: UnsafeMutablePointer<pthread_cond_t>, until deadline: Double) {
        // A deadline no timespec holds (an infinite timeout: "wait as long as it takes") waits
        // 30 million years; a NaN one not at all. Converting either to Int traps.
        let deadline = deadline.isNaN ? 0 : min(max(deadline, 0), 1e15)
        let whole = deadline.rounded(.down)
        var spec = timespec(tv_sec: Int(whole), tv_nsec: Int((deadline - whole) * 1e9))
        pthread_cond_timedwait(condition, mutex, &spec)
    }
}

/// Seconds on the monotonic clock: for intervals and deadlines, never stored.
func monotonicNow() -> Double {
    var spec = timespec()
    clock_gettime(CLOCK_MONOTONIC, &spec)
    return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
}

/// Unix seconds from the wall clock.
public func wallClockNow() -> Double {
    var spec = timespec()
    clock_gettime(CLOCK_REALTIME, &spec)
    return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
}
