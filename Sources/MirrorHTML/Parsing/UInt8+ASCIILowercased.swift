extension UInt8 {
    /// The byte with an ASCII capital made lower-case, any other byte as it is: markup and
    /// charset labels compare ASCII letters without regard to case, byte by byte.
    var asciiLowercased: UInt8 {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(self) ? self | 0x20 : self
    }
}
