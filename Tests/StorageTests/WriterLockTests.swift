import Foundation
import Testing
@testable import Storage

/// One writer per database: a second `WriterLock` on the same file is refused at once with
/// the holder's pid, and the lock is free again once its holder goes.
@Suite struct WriterLockTests {
    @Test func aSecondLockIsRefusedWithTheHoldersPidUntilTheFirstGoes() throws {
        let dir = TempDirectory()
        let path = dir.file("w.db")
        var first: WriterLock? = try WriterLock(database: path)
        #expect(first?.path == path + ".lock")
        #expect(try String(contentsOfFile: path + ".lock", encoding: .utf8) == "\(getpid())\n")
        do {
            _ = try WriterLock(database: path)
            Issue.record("a second lock was granted")
        } catch {
            #expect(error.holder == getpid())
            #expect(error.reason == nil)
            #expect("\(error)" == "another process (pid \(getpid())) is writing this database (it holds \(path).lock); stop it first")
        }
        first = nil
        #expect(first == nil)
        let again = try WriterLock(database: path)
        #expect(again.path == path + ".lock")
    }

    /// Readers take no lock: a query works while the writer holds it.
    @Test func readersWorkWhileTheLockIsHeld() throws {
        let dir = TempDirectory()
        let path = dir.file("w.db")
        try Schema.prepare(path: path)
        let lock = try WriterLock(database: path)
        #expect(try TrackReader(path: path).visits().isEmpty)
        _ = lock
    }

    /// A database reached through a symbolic link has the lock of the file it names (before:
    /// `link.db.lock`, so two aggregators wrote one file).
    @Test func aSymlinkedDatabaseSharesTheLockOfItsFile() throws {
        let dir = TempDirectory()
        let path = dir.file("w.db")
        try Schema.prepare(path: path)
        try FileManager.default.createSymbolicLink(atPath: dir.file("link.db"), withDestinationPath: path)
        let lock = try WriterLock(database: path)
        #expect(throws: WriterLockError.self) { try WriterLock(database: dir.file("link.db")) }
        #expect(WriterLock.realPath(dir.file("link.db")) == path)
        // Not created yet: named after its directory's real path.
        try FileManager.default.createSymbolicLink(atPath: dir.file("linked-dir"), withDestinationPath: dir.path)
        #expect(WriterLock.realPath(dir.file("linked-dir/new.db")) == dir.file("new.db"))
        _ = lock
    }

    /// A `.lock` planted as a symbolic link (or a hard link) to another file is refused, and
    /// that file is neither chmod-ed nor truncated (before: a root run made the target 0644
    /// and wrote its pid into it; review of the lock).
    @Test func aLockPlantedAsALinkIsRefusedAndItsTargetLeftAlone() throws {
        let dir = TempDirectory()
        let secret = dir.file("secret")
        try "not yours\n".write(toFile: secret, atomically: false, encoding: .utf8)
        chmod(secret, 0o600)
        try FileManager.default.createSymbolicLink(atPath: dir.file("s.db.lock"), withDestinationPath: secret)
        try FileManager.default.linkItem(atPath: secret, toPath: dir.file("h.db.lock"))
        for database in [dir.file("s.db"), dir.file("h.db")] {
            #expect(throws: WriterLockError.self) { try WriterLock(database: database) }
        }
        var info = stat()
        #expect(stat(secret, &info) == 0 && info.st_mode & 0o777 == 0o600)
        #expect(try String(contentsOfFile: secret, encoding: .utf8) == "not yours\n")
    }

    @Test func aLockFileThatCannotBeOpenedSaysWhy() throws {
        let dir = TempDirectory()
        #expect(throws: WriterLockError.self) { try WriterLock(database: dir.file("missing/w.db")) }
    }
}
