/// Receives the start tags libxml2's HTML parser finds (through `HTMLSAXParser`), in document
/// order, as bytes that are valid only during each call — no String is made for what nobody
/// reads. Element and attribute names are lower-cased. (End tags and text are not reported:
/// the locator reads `<style>` text from the original bytes.)
protocol HTMLEventHandler: AnyObject {
    func startElement(_ name: UnsafeBufferPointer<UInt8>, attributes: [HTMLAttributeBytes])
}
