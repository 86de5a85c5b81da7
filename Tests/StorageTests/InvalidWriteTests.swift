import Foundation
import Testing
@testable import Storage

/// Times as the store writes them out (export, queries).
@Suite struct InvalidWriteTests {
    /// Times are only checked for being finite: a stored time past what a millisecond count
    /// holds (a node's clock gone wild) is written out as a number, not a crash of the export.
    @Test func anOutOfRangeTimeFormatsWithoutTrapping() {
        #expect(ISO8601.format(1e300) == "1e+300")
        #expect(ISO8601.format(-1e300) == "-1e+300")
        #expect(ISO8601.format(1_764_410_000.25) == "2025-11-29T09:53:20.250Z")
    }
}
