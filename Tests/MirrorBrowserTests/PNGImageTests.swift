import Testing

@testable import MirrorBrowser

/// The decoder the offline check reads screenshots with: every row filter of the PNG
/// specification undone exactly, and damaged input an error before any large allocation.
@Suite("Screenshots decoded")
struct PNGImageTests {
    /// 3×5 RGB, its rows filtered with None, Sub, Up, Average and Paeth, made with Python's zlib.
    static let png: [UInt8] = [
        137, 80, 78, 71, 13, 10, 26, 10, 0, 0, 0, 13, 73, 72, 68, 82, 0, 0, 0, 3, 0, 0, 0, 5, 8, 2, 0, 0, 0, 15, 19, 193, 245,
        0, 0, 0, 61, 73, 68, 65, 84, 120, 156, 1, 50, 0, 205, 255, 0, 165, 77, 202, 24, 37, 48, 187, 29, 109, 1, 19, 44, 222,
        195, 247, 157, 88, 182, 163, 2, 44, 70, 65, 245, 246, 246, 233, 107, 118, 3, 183, 16, 45, 205, 43, 222, 6, 110, 205,
        4, 74, 213, 45, 222, 188, 55, 81, 14, 25, 34, 94, 21, 156, 51, 161, 61, 61, 0, 0, 0, 0, 73, 69, 78, 68, 174, 66, 96, 130,
    ]
    static let pixels: [UInt8] = [
        165, 77, 202, 24, 37, 48, 187, 29, 109, 19, 44, 222, 214, 35, 123, 46, 217, 30, 63, 114, 31, 203, 25, 113, 23, 68,
        148, 214, 73, 60, 157, 92, 52, 96, 190, 49, 32, 30, 105, 254, 218, 160, 238, 232, 185,
    ]

    @Test func everyRowFilterIsUndone() throws {
        let image = try PNGImage(Self.png)
        #expect(image.width == 3 && image.height == 5 && image.channels == 3)
        #expect(image.pixels == Self.pixels)
        #expect(image.differingPixels(from: image) == 0)
    }

    @Test func differingPixelsAreCountedOnce() throws {
        let image = try PNGImage(Self.png)
        var pixels = Self.pixels
        pixels[0] ^= 1  // pixel 0, red
        pixels[1] ^= 1  // pixel 0, green: the same pixel
        pixels[44] ^= 0x80  // pixel 14, blue
        let changed = PNGImage(width: 3, height: 5, pixels: pixels, channels: 3)
        #expect(image.differingPixels(from: changed) == 2)
        #expect(image.differingPixels(from: PNGImage(width: 5, height: 3, pixels: pixels, channels: 3)) == nil)
    }

    @Test func damagedInputIsAnError() {
        #expect(throws: PNGImage.DecodingError.notPNG) { try PNGImage(Array("GIF89a".utf8)) }
        #expect(throws: PNGImage.DecodingError.truncated) { try PNGImage(Array(Self.png.prefix(40))) }
        // A header that claims 65,536 × 65,536 pixels is refused before its data is inflated.
        var huge = Self.png
        huge[16...23] = [0, 1, 0, 0, 0, 1, 0, 0]
        #expect(throws: PNGImage.DecodingError.self) { try PNGImage(huge) }
        // Image data shorter than the header says.
        var short = Self.png
        short[23] = 6
        #expect(throws: PNGImage.DecodingError.self) { try PNGImage(short) }
    }
}
