import Testing
@testable import Aggregator

/// `whereabouts_processing_cpu_seconds` measures one message in 16, evenly: every sixteenth.
@Test func oneMessageInSixteenIsMeasuredEvenly() {
    var sampling = CPUSampling()
    let taken = (1...160).filter { _ in sampling.take() }
    #expect(taken == Array(stride(from: 16, through: 160, by: 16)))
}
