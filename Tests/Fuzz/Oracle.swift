// Shared by every fuzz target: an oracle that keeps its message in optimized builds, where
// `precondition` drops it, so a crash report says which property broke.

@inline(__always)
func oracle(_ holds: Bool, _ message: @autoclosure () -> String, file: StaticString = #fileID, line: UInt = #line) {
    if !holds { fatalError(message(), file: file, line: line) }
}
