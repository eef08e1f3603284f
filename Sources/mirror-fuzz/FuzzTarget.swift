/// One parser of outside input under fuzzing: `run` feeds it one input and checks its contract,
/// calling `violation` when the contract does not hold (a crash is caught by libFuzzer itself).
struct FuzzTarget: Sendable {
    /// The name `scripts/fuzz` and the corpus folder (`Fuzz/corpus/NAME`) use.
    let name: String
    /// The dictionary in `Fuzz/dictionaries` that helps libFuzzer make its inputs, if any.
    let dictionary: String?
    /// The contract checked, in a line (`mirror-fuzz --list --verbose`).
    let contract: String
    let run: @Sendable (_ input: [UInt8]) -> Void

    init(_ name: String, dictionary: String? = nil, contract: String, run: @escaping @Sendable (_ input: [UInt8]) -> Void) {
        self.name = name
        self.dictionary = dictionary
        self.contract = contract
        self.run = run
    }
}

/// Stops at an input the parser's contract does not hold for: libFuzzer saves the input as a
/// crash and the replay names it.
func violation(_ message: @autoclosure () -> String, file: StaticString = #fileID, line: UInt = #line) -> Never {
    fatalError("contract violated: \(message())", file: file, line: line)
}

/// Checks a contract's condition, stopping as `violation` does when it is false. Unlike
/// `precondition`, it holds in every build.
func require(_ condition: Bool, _ message: @autoclosure () -> String, file: StaticString = #fileID, line: UInt = #line) {
    if !condition { violation(message(), file: file, line: line) }
}
