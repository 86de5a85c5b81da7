import Positioning
import SiteModel
import Testing
import Wire

/// TRUTH.csv and ROOMS.csv: what a survey's ground truth says, and a clear error naming the line.
@Suite struct SurveyInputTests {
    static let site: Site = {
        var site = Site()
        var ground = Floor(id: "ground", name: "Ground", bounds: (Point3(0, 0, 0), Point3(10, 8, 2.5)))
        ground.rooms = [Room(id: "kitchen", name: "Kitchen", points: [Point2(0, 0), Point2(5, 0), Point2(5, 8), Point2(0, 8)]),
                        Room(id: "hall", name: "Hall", points: [Point2(5, 0), Point2(10, 0), Point2(10, 8), Point2(5, 8)])]
        let upstairs = Floor(id: "first", name: "First", bounds: (Point3(0, 0, 2.7), Point3(10, 8, 5.2)))
        site.floors = [ground, upstairs]
        return site
    }()

    @Test func positionsAreInterpolatedWithinTheGapAndHeldThroughAStay() throws {
        let truth = try TruthTrack(csv: "t,x,y\n100,1,1\n101,3,1\n# a stay of a minute\n101.5,3,2\n161.5,3,2\n170,9,7\n", site: Self.site)
        let p = try #require(truth.position(at: 100.5))
        #expect(abs(p.point.x - 2) < 1e-9 && abs(p.point.y - 1) < 1e-9)
        #expect(abs(p.point.z - TruthTrack.carriedHeight) < 1e-9 && p.floor == 0)
        #expect(truth.position(at: 130)?.point == Point3(3, 2, 1))  // the stay: 60 s, same point
        #expect(truth.position(at: 165) == nil)  // 8.5 s between different points: no truth
        #expect(truth.position(at: 99.9) == nil && truth.position(at: 170.1) == nil)
        #expect(truth.position(at: 170)?.point.x == 9)
        let wide = try TruthTrack(csv: "t,x,y\n161.5,3,2\n170,9,7\n", site: Self.site, maxGap: 10)
        #expect(wide.position(at: 165) != nil)
    }

    @Test func zAndFloorColumnsAreRead() throws {
        let truth = try TruthTrack(csv: "floor,t,x,y,z\nfirst,5,1,1,3.9\nfirst,6,1,2,3.9\n", site: Self.site)
        #expect(truth.rows.map(\.floor) == [1, 1])
        #expect(truth.position(at: 5.5)?.point == Point3(1, 1.5, 3.9))
    }

    @Test(arguments: [
        ("t,x,y\n10,1,1\n9,2,2\n", 3, "goes back"),
        ("t,x,y\n10,1,oops\n", 2, "y 'oops' is not a number"),
        ("t,x,y\n10,1\n", 2, "expected 3 fields"),
        ("t,x,y\n10,11,1\n", 2, "outside floor ground"),
        ("t,x,y,floor\n10,1,1,attic\n", 2, "unknown floor 'attic'"),
        ("t,x,when\n", 1, "unknown column 'when'"),
        ("t,x\n", 1, "needs t, x and y"),
        ("", 1, "empty file"),
        ("t,x,y\n", 2, "no rows"),
        ("t,x,y\nnan,1,1\n", 2, "t 'nan' is not a number"),
    ] as [(String, Int, String)])
    func badTruthSaysWhichLineAndWhy(text: String, line: Int, message: String) {
        #expect(throws: SurveyInputError.self) { _ = try TruthTrack(csv: text, site: Self.site) }
        do {
            _ = try TruthTrack(csv: text, site: Self.site)
        } catch {
            #expect(error.line == line, "\(error)")
            #expect(error.message.contains(message), "\(error)")
        }
    }

    @Test func roomSpansAreLookedUp() throws {
        let rooms = try RoomLabels(csv: "t_start,t_end,room\n10,20,kitchen\n20,30,hall\n40,50,kitchen\n", site: Self.site)
        #expect(rooms.room(at: 15) == "kitchen")
        #expect(rooms.room(at: 25) == "hall")
        #expect(rooms.room(at: 35) == nil && rooms.room(at: 5) == nil && rooms.room(at: 51) == nil)
        #expect(rooms.room(at: 50) == "kitchen")
    }

    @Test(arguments: [
        ("t_start,t_end,room\n10,20,pantry\n", 2, "unknown room 'pantry'"),
        ("t_start,t_end,room\n10,20,kitchen\n15,30,hall\n", 3, "goes back"),
        ("t_start,t_end,room\n20,10,kitchen\n", 2, "before t_start"),
        ("t_start,t_end,room\nx,10,kitchen\n", 2, "t_start 'x' is not a number"),
        ("t_start,t_end\n", 1, "expected the header"),
        ("t_start,t_end,room\n10,20\n", 2, "expected 3 fields"),
    ] as [(String, Int, String)])
    func badRoomsSayWhichLineAndWhy(text: String, line: Int, message: String) {
        do {
            _ = try RoomLabels(csv: text, site: Self.site)
            Issue.record("accepted \(text)")
        } catch {
            #expect(error.line == line, "\(error)")
            #expect(error.message.contains(message), "\(error)")
        }
    }
}
