import MirrorCLI

@main
enum Main {
    static func main() async {
        await MirrorCommand.runMain()
    }
}
