// Downloading a feed with a size limit. URLSession's data(for:) keeps the
// whole body in memory whatever its size, and FoundationNetworking on Linux
// has no bytes(for:); a data delegate counts the bytes as they come and
// cancels past the limit, so that a page's "Add feed" cannot exhaust memory.
import Coherence
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One download: its bytes, up to a limit.
final class FeedDownload: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    /// What a download ends with.
    enum Failure: Error {
        /// More than the limit arrived (or was announced).
        case tooLarge
        /// The transfer failed.
        case failed(any Error)
    }

    private struct State {
        var data = Data()
        var response: URLResponse?
        var exceeded = false
        var continuation: CheckedContinuation<(Data, URLResponse?), any Error>?
    }

    private let limit: Int
    // Delegate calls arrive on URLSession's queue; the continuation is set
    // from the caller's task.
    private let state = Locked(State())

    private init(limit: Int) { self.limit = limit }

    /// The body and response of `request`, or ``Failure``.
    static func load(_ request: URLRequest, limit: Int) async throws -> (Data, URLResponse?) {
        let download = FeedDownload(limit: limit)
        let session = URLSession(configuration: .ephemeral, delegate: download, delegateQueue: nil)
        defer { session.finishTasksAndInvalidate() }
        return try await withCheckedThrowingContinuation { continuation in
            download.state.withLock { $0.continuation = continuation }
            session.dataTask(with: request).resume()
        }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping (URLSession.ResponseDisposition) -> Void) {
        let announced = response.expectedContentLength
        state.withLock {
            $0.response = response
            if announced > limit { $0.exceeded = true }
        }
        completionHandler(announced > limit ? .cancel : .allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let exceeded = state.withLock { state in
            state.data.append(data)
            if state.data.count > limit { state.exceeded = true }
            return state.exceeded
        }
        if exceeded { dataTask.cancel() }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let (continuation, result): (CheckedContinuation<(Data, URLResponse?), any Error>?, Result<(Data, URLResponse?), Failure>) =
            state.withLock { state in
                defer { state.continuation = nil }
                if state.exceeded { return (state.continuation, .failure(.tooLarge)) }
                if let error { return (state.continuation, .failure(.failed(error))) }
                return (state.continuation, .success((state.data, state.response)))
            }
        continuation?.resume(with: result.mapError { $0 as any Error })
    }
}
