@testable import Edge
import Testing

@Suite("BatchLimit: batches cut to the broker's packet limit, and grown back")
struct BatchLimitTests {
    @Test func startsAtBatchMaxAndHalvesOnEachRefusal() {
        var limit = BatchLimit(batchMax: 200)
        #expect(limit.value == 200)
        #expect(limit.refused(count: 200) == .split)
        #expect(limit.value == 100)
        #expect(limit.refused(count: 100) == .split)
        #expect(limit.value == 50)
        // A partial batch smaller than the limit is cut from its own size.
        #expect(limit.refused(count: 30) == .split)
        #expect(limit.value == 15)
    }

    @Test func doublesAfterGrowAfterBatchesSentInARowButNeverAboveBatchMax() {
        var limit = BatchLimit(batchMax: 200)
        _ = limit.refused(count: 200)
        _ = limit.refused(count: 100)
        for _ in 1..<BatchLimit.growAfter { limit.sent() }
        #expect(limit.value == 50)
        limit.sent()
        #expect(limit.value == 100)
        for _ in 1...BatchLimit.growAfter { limit.sent() }
        #expect(limit.value == 200)
        for _ in 1...(3 * BatchLimit.growAfter) { limit.sent() }
        #expect(limit.value == 200)

        var odd = BatchLimit(batchMax: 150)
        _ = odd.refused(count: 150)
        for _ in 1...(2 * BatchLimit.growAfter) { odd.sent() }
        #expect(odd.value == 150)
    }

    @Test func aRefusalRestartsTheCountTowardsGrowing() {
        var limit = BatchLimit(batchMax: 200)
        _ = limit.refused(count: 200)
        for _ in 1..<BatchLimit.growAfter { limit.sent() }
        _ = limit.refused(count: 100)
        #expect(limit.value == 50)
        for _ in 1..<BatchLimit.growAfter { limit.sent() }
        #expect(limit.value == 50)
        limit.sent()
        #expect(limit.value == 100)
    }

    @Test func aLoneReadingTooLargeIsDroppedAndTheLimitGoesBackToBatchMax() {
        var limit = BatchLimit(batchMax: 8)
        for count in [8, 4, 2] { #expect(limit.refused(count: count) == .split) }
        #expect(limit.value == 1)
        #expect(limit.refused(count: 1) == .drop)
        #expect(limit.value == 8)
    }

    @Test func aNewConnectionStartsAfresh() {
        var limit = BatchLimit(batchMax: 200)
        _ = limit.refused(count: 200)
        for _ in 1..<BatchLimit.growAfter { limit.sent() }
        limit.reset()
        #expect(limit.value == 200)
        _ = limit.refused(count: 200)
        // The sends before the reset no longer count towards growing.
        limit.sent()
        #expect(limit.value == 100)
    }
}
