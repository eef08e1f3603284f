import MirrorCompression

/// The pixels of a PNG as Chromium's screenshots are made: 8 bits per channel, RGB or RGBA (or
/// grey), not interlaced. Enough for the offline check to compare two screenshots pixel by
/// pixel; any other PNG is an error, not a guess.
struct PNGImage: Equatable {
    let width: Int
    let height: Int
    /// Row after row, `channels` bytes a pixel.
    let pixels: [UInt8]
    let channels: Int

    enum DecodingError: Error, Equatable {
        case notPNG
        case truncated
        case unsupported(String)
        case damaged(String)
    }

    init(width: Int, height: Int, pixels: [UInt8], channels: Int) {
        self.width = width
        self.height = height
        self.pixels = pixels
        self.channels = channels
    }

    private static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    /// Larger than any window's screenshot: a damaged header cannot make the decoder allocate gigabytes.
    private static let maxPixels = 64 << 20

    init(_ bytes: [UInt8]) throws(DecodingError) {
        guard bytes.count >= 8, Array(bytes[0..<8]) == Self.signature else { throw .notPNG }
        var offset = 8
        var header: (width: Int, height: Int, channels: Int)?
        var compressed: [UInt8] = []
        var ended = false
        while !ended {
            guard offset + 8 <= bytes.count else { throw .truncated }
            let length = Self.bigEndian(bytes, at: offset)
            let type = String(decoding: bytes[offset + 4..<offset + 8], as: UTF8.self)
            guard length <= bytes.count - offset - 12 else { throw .truncated }
            let data = bytes[offset + 8..<offset + 8 + length]
            offset += 12 + length
            switch type {
            case "IHDR":
                guard length == 13 else { throw .damaged("IHDR of \(length) bytes") }
                let width = Self.bigEndian(bytes, at: data.startIndex)
                let height = Self.bigEndian(bytes, at: data.startIndex + 4)
                let depth = data[data.startIndex + 8]
                let colour = data[data.startIndex + 9]
                let interlace = data[data.startIndex + 12]
                guard depth == 8 else { throw .unsupported("bit depth \(depth)") }
                guard interlace == 0 else { throw .unsupported("interlacing") }
                let channels: Int
                switch colour {
                case 0: channels = 1
                case 2: channels = 3
                case 4: channels = 2
                case 6: channels = 4
                default: throw .unsupported("colour type \(colour)")
                }
                guard width > 0, height > 0, width * height <= Self.maxPixels else { throw .damaged("size \(width)×\(height)") }
                header = (width, height, channels)
            case "IDAT":
                compressed += data
            case "IEND":
                ended = true
            default:
                break
            }
        }
        guard let header else { throw .damaged("no IHDR") }
        let stride = header.width * header.channels
        let expected = (stride + 1) * header.height
        let filtered: [UInt8]
        do {
            filtered = try GzipDecoder.decompress(compressed, limit: expected)
        } catch {
            throw .damaged("image data: \(error)")
        }
        guard filtered.count == expected else { throw .damaged("\(filtered.count) bytes of image data, not \(expected)") }
        width = header.width
        height = header.height
        channels = header.channels
        pixels = try Self.unfiltered(filtered, stride: stride, height: header.height, bytesPerPixel: header.channels)
    }

    private static func bigEndian(_ bytes: [UInt8], at offset: Int) -> Int {
        Int(bytes[offset]) << 24 | Int(bytes[offset + 1]) << 16 | Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
    }

    /// Undoes each row's filter (PNG specification, section 9).
    private static func unfiltered(_ data: [UInt8], stride: Int, height: Int, bytesPerPixel bpp: Int) throws(DecodingError) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: stride * height)
        for row in 0..<height {
            let filter = data[row * (stride + 1)]
            let source = row * (stride + 1) + 1
            let target = row * stride
            for column in 0..<stride {
                let x = data[source + column]
                let a = column >= bpp ? Int(out[target + column - bpp]) : 0
                let b = row > 0 ? Int(out[target - stride + column]) : 0
                let c = row > 0 && column >= bpp ? Int(out[target - stride + column - bpp]) : 0
                let predicted: Int
                switch filter {
                case 0: predicted = 0
                case 1: predicted = a
                case 2: predicted = b
                case 3: predicted = (a + b) / 2
                case 4:
                    let p = a + b - c
                    let pa = abs(p - a)
                    let pb = abs(p - b)
                    let pc = abs(p - c)
                    predicted = pa <= pb && pa <= pc ? a : (pb <= pc ? b : c)
                default: throw .damaged("row filter \(filter)")
                }
                out[target + column] = x &+ UInt8(truncatingIfNeeded: predicted)
            }
        }
        return out
    }

    /// How many pixels differ between two screenshots of the same size (any channel); nil when
    /// their sizes differ.
    func differingPixels(from other: PNGImage) -> Int? {
        guard width == other.width, height == other.height else { return nil }
        if channels == other.channels && pixels == other.pixels { return 0 }
        var count = 0
        for index in 0..<width * height where rgba(at: index) != other.rgba(at: index) { count += 1 }
        return count
    }

    /// Pixel `index` as RGBA, whatever the channels.
    private func rgba(at index: Int) -> UInt32 {
        let base = index * channels
        switch channels {
        case 1:
            let g = UInt32(pixels[base])
            return g << 24 | g << 16 | g << 8 | 0xFF
        case 2:
            let g = UInt32(pixels[base])
            return g << 24 | g << 16 | g << 8 | UInt32(pixels[base + 1])
        case 3: return UInt32(pixels[base]) << 24 | UInt32(pixels[base + 1]) << 16 | UInt32(pixels[base + 2]) << 8 | 0xFF
        default:
            return UInt32(pixels[base]) << 24 | UInt32(pixels[base + 1]) << 16 | UInt32(pixels[base + 2]) << 8 | UInt32(pixels[base + 3])
        }
    }
}
