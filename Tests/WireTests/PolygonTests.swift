import Testing
import Wire
import SiteModel

private let lShape = [Point2(0, 0), Point2(4, 0), Point2(4, 2), Point2(2, 2), Point2(2, 4), Point2(0, 4)]

@Test(arguments: [
    (Point2(1, 1), true), (Point2(3, 1), true), (Point2(3, 3), false), (Point2(1, 3), true),
    (Point2(4, 1), true), (Point2(-0.1, 1), false), (Point2(2, 2), true), (Point2(5, 5), false),
])
func containsFollowsTheLShape(point: Point2, inside: Bool) {
    #expect(Polygon.contains(lShape, point) == inside)
}

@Test func areaAndCentroid() {
    let square = [Point2(0, 0), Point2(2, 0), Point2(2, 2), Point2(0, 2)]
    #expect(Polygon.signedArea(square) == 4)
    #expect(Polygon.signedArea(square.reversed()) == -4)
    #expect(Polygon.centroid(square) == Point2(1, 1))
    #expect(Polygon.signedArea(lShape) == 12)
    #expect(abs(Polygon.distanceToBoundary(square, Point2(1, 0.5)) - 0.5) < 1e-12)
}

@Test func segmentsCrossOrNot() {
    #expect(Segment.intersects(Point2(0, 0), Point2(2, 2), Point2(0, 2), Point2(2, 0)))
    #expect(!Segment.intersects(Point2(0, 0), Point2(1, 1), Point2(0, 2), Point2(2, 3)))
    #expect(Segment.intersects(Point2(0, 0), Point2(2, 0), Point2(2, 0), Point2(2, 5)))
    #expect(abs(Segment.distance(Point2(1, 1), Point2(0, 0), Point2(2, 0)) - 1) < 1e-12)
}
