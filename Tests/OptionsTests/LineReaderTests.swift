import Testing
import Options

/// What a reader made of `input` read `chunk` bytes at a time: kept lines as text,
/// skipped ones as `<N bytes>`.
private func lines(_ input: [UInt8], limit: Int, chunk: Int) -> [String] {
    var offset = 0
    var reader = LineReader(limit: limit) { buffer in
        let n = min(chunk, buffer.count, input.count - offset)
        for i in 0..<n { buffer[i] = input[offset + i] }
        offset += n
        return n
    }
    var out: [String] = []
    reader.forEach { line in
        switch line {
        case .text(let bytes): out.append(String(decoding: bytes, as: UTF8.self))
        case .tooLong(let n): out.append("<\(n) bytes>")
        }
        return true
    }
    return out
}

@Test(arguments: [1, 3, 7, 4096])
func linesAtEveryChunkSize(chunk: Int) {
    let input = Array("one\n\ntwo three\nfour".utf8)
    #expect(lines(input, limit: 16, chunk: chunk) == ["one", "", "two three", "four"])
}

@Test(arguments: [1, 5, 64, 100_000])
func aLineOverTheLimitIsSkippedToItsNewline(chunk: Int) {
    let long = [UInt8](repeating: UInt8(ascii: "a"), count: 50_000)
    let input = Array("before\n".utf8) + long + Array("\nafter\n".utf8) + long
    #expect(lines(input, limit: 100, chunk: chunk) == ["before", "<50000 bytes>", "after", "<50000 bytes>"])
}

@Test func aLineOfExactlyTheLimitIsKept() {
    let input = Array("12345\n123456\n1234\n".utf8)
    #expect(lines(input, limit: 5, chunk: 2) == ["12345", "<6 bytes>", "1234"])
}

@Test func stoppingEndsTheReadAndAReadErrorIsReported() {
    var calls = 0
    var reader = LineReader(limit: 8) { buffer in
        calls += 1
        if calls > 1 { return -5 }  // EIO
        for (i, b) in "a\nb\nc".utf8.enumerated() { buffer[i] = b }
        return 5
    }
    var seen: [String] = []
    reader.forEach { line in
        if case .text(let bytes) = line { seen.append(String(decoding: bytes, as: UTF8.self)) }
        return seen.count < 1
    }
    #expect(seen == ["a"])
    reader.forEach { line in
        if case .text(let bytes) = line { seen.append(String(decoding: bytes, as: UTF8.self)) }
        return true
    }
    // "b" is whole; "c" was cut short by the failed read, so it is dropped (review of
    // edgecli: it was passed on as a complete line), and the error number is kept.
    #expect(seen == ["a", "b"])
    #expect(reader.failed)
    #expect(reader.failure == 5)
    #expect(reader.failureReason == "Input/output error")
}

/// The newline search reads eight bytes at a time: a newline at every offset of a word, and
/// bytes that differ from a newline by one bit (0x0B, 0x8A), are told apart.
@Test(arguments: 0..<20)
func aNewlineAtEveryOffsetIsFound(offset: Int) {
    let near: [UInt8] = [0x0B, 0x8A, 0x09, 0x1A]
    let first = (0..<offset).map { near[$0 % near.count] }
    let input = first + [0x0A] + Array("tail".utf8)
    var lines: [[UInt8]] = []
    var position = 0
    var reader = LineReader(limit: 64) { buffer in
        let n = min(buffer.count, input.count - position)
        for i in 0..<n { buffer[i] = input[position + i] }
        position += n
        return n
    }
    reader.forEach { line in
        if case .text(let bytes) = line { lines.append(Array(bytes)) }
        return true
    }
    #expect(lines == [first, Array("tail".utf8)])
}
