/**
 * JSON-RPC over stdio, strict about what it accepts: a body that is not JSON gets a Parse
 * error response, a JSON value that is not a request, notification or response gets an
 * Invalid Request error (with its id when it has one), and the server reads on. Without this
 * a client that sent a bad request would wait for an answer that never comes.
 */
import { ErrorCodes, Message, StreamMessageReader, StreamMessageWriter, type DataCallback, type MessageReader, type MessageWriter } from "vscode-languageserver/node";

export interface Transport {
  reader: MessageReader;
  writer: MessageWriter;
}

export function stdioTransport(input: NodeJS.ReadableStream, output: NodeJS.WritableStream): Transport {
  const inner = new StreamMessageReader(input);
  const writer = new StreamMessageWriter(output);
  const refuse = (id: number | string | null, code: number, message: string) => void writer.write({ jsonrpc: "2.0", id, error: { code, message } } as Message);
  inner.onError((error) => {
    refuse(null, ErrorCodes.ParseError, `not a JSON-RPC message: ${error.message.split("\n")[0]}`);
    // After a header without Content-Length the reader stops until more data comes: what
    // already came (the next message, often) is read now.
    setImmediate(() => input.emit("data", Buffer.alloc(0)));
  });
  const reader: MessageReader = {
    onError: inner.onError,
    onClose: inner.onClose,
    onPartialMessage: inner.onPartialMessage,
    listen(callback: DataCallback) {
      return inner.listen((message) => {
        if (Message.isRequest(message) || Message.isNotification(message) || Message.isResponse(message)) return callback(message);
        const id = (message as { id?: unknown } | null)?.id;
        refuse(typeof id === "number" || typeof id === "string" ? id : null, ErrorCodes.InvalidRequest, "invalid request: a JSON-RPC 2.0 message has a string method (and a numeric or string id for a request)");
      });
    },
    dispose: () => inner.dispose(),
  };
  return { reader, writer };
}
