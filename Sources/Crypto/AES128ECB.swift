internal import CCrypto

/// AES-128 encryption of single 16-byte blocks (ECB, no padding) under one key, through
/// libcrypto's EVP interface.
///
/// The key schedule is set up once, in `init`; each `encrypt` is then one `EVP_EncryptUpdate`
/// on caller-provided memory and allocates nothing. Not thread-safe: the cipher context holds
/// state between calls, so use one instance per thread.
public final class AES128ECB {
    /// Bytes in a block and in a key.
    public static let blockSize = 16

    private let context: OpaquePointer

    /// `key` must be 16 bytes, most significant first as the Bluetooth Core spec writes them.
    public init(key: [UInt8]) throws(CryptoError) {
        guard key.count == Self.blockSize else { throw CryptoError("an AES-128 key is 16 bytes, got \(key.count)") }
        guard let context = EVP_CIPHER_CTX_new() else { throw CryptoError.failed("EVP_CIPHER_CTX_new") }
        self.context = context
        let ok = key.withUnsafeBufferPointer { k in
            EVP_EncryptInit_ex(context, EVP_aes_128_ecb(), nil, k.baseAddress, nil) == 1
        }
        // Whole blocks in, whole blocks out: padding would only hold a block back.
        guard ok, EVP_CIPHER_CTX_set_padding(context, 0) == 1 else { throw CryptoError.failed("EVP_EncryptInit_ex") }
    }

    deinit { EVP_CIPHER_CTX_free(context) }

    /// Encrypts the 16 bytes at `input` into the 16 bytes at `output` (they may be the same
    /// memory). Returns false only if libcrypto fails, which a valid context does not.
    @discardableResult
    public func encrypt(_ input: UnsafeRawPointer, into output: UnsafeMutableRawPointer) -> Bool {
        var written: Int32 = 0
        let ok = EVP_EncryptUpdate(context, output.assumingMemoryBound(to: UInt8.self), &written,
                                   input.assumingMemoryBound(to: UInt8.self), Int32(Self.blockSize))
        return ok == 1 && written == Int32(Self.blockSize)
    }

    /// Encrypts one block; allocates the result, so it is for tests and tools, not hot paths.
    public func encrypt(_ block: [UInt8]) throws(CryptoError) -> [UInt8] {
        guard block.count == Self.blockSize else { throw CryptoError("an AES block is 16 bytes, got \(block.count)") }
        var out = [UInt8](repeating: 0, count: Self.blockSize)
        let ok = block.withUnsafeBytes { i in
            out.withUnsafeMutableBytes { o in
                guard let input = i.baseAddress, let output = o.baseAddress else { return false }
                return encrypt(input, into: output)
            }
        }
        guard ok else { throw CryptoError.failed("EVP_EncryptUpdate") }
        return out
    }
}
