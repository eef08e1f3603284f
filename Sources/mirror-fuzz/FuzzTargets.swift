/// Every target, by name. Each group lives in a file of its own beside this one.
enum FuzzTargets {
    static let all: [FuzzTarget] = html + web + cache + archives + services

    static func named(_ name: String) -> FuzzTarget? { all.first { $0.name == name } }
}
