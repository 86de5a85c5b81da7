import Foundation

/// glibc's allocator, tuned for a long-running service with a few busy threads.
///
/// glibc gives each thread that allocates its own arena (up to 8 per core) and keeps what an
/// arena once held: payloads copied on libmosquitto's thread, positions on the work queue,
/// rows on the SQLite writer each grow a heap of their own. Reached through `dlsym` because
/// Swift's Glibc module does not import `<malloc.h>`.
public enum MallocTuning {
    private typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
    private typealias MallocTrim = @convention(c) (Int) -> Int32

    // <malloc.h>
    private static let arenaMax: Int32 = -8
    private static let trimThreshold: Int32 = -1

    private static func symbol<T>(_ name: String, as type: T.Type) -> T? {
        guard let library = dlopen(nil, RTLD_NOW), let pointer = dlsym(library, name) else { return nil }
        return unsafeBitCast(pointer, to: type)
    }

    /// At most `arenas` arenas and a lower trim threshold; call before any thread starts.
    /// `WHEREABOUTS_MALLOC=default` leaves glibc as it is (to measure the difference).
    /// Returns false when glibc's `mallopt` is not there (another libc).
    @discardableResult
    public static func apply(arenas: Int32 = 2, trimThreshold bytes: Int32 = 1 << 20) -> Bool {
        if ProcessInfo.processInfo.environment["WHEREABOUTS_MALLOC"] == "default" { return false }
        guard let mallopt = symbol("mallopt", as: Mallopt.self) else { return false }
        return mallopt(arenaMax, arenas) == 1 && mallopt(trimThreshold, bytes) == 1
    }

    /// Gives free pages back to the kernel from every arena (`malloc_trim(0)`).
    public static func trim() {
        if ProcessInfo.processInfo.environment["WHEREABOUTS_MALLOC"] == "default" { return }
        _ = symbol("malloc_trim", as: MallocTrim.self)?(0)
    }
}
