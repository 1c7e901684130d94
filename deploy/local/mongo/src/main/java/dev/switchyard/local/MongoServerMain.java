package dev.switchyard.local;

import de.bwaldvogel.mongo.MongoBackend;
import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.backend.h2.H2Backend;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;

/**
 * Fallback MongoDB wire-protocol server for local tests.
 * Usage: MongoServerMain <host> <port> [h2-file | :memory:]
 * With an h2 file the data survives a restart of this process.
 */
public final class MongoServerMain {
    public static void main(String[] args) throws Exception {
        String host = args.length > 0 ? args[0] : "127.0.0.1";
        int port = args.length > 1 ? Integer.parseInt(args[1]) : 27017;
        String file = args.length > 2 ? args[2] : ":memory:";
        MongoBackend backend = ":memory:".equals(file) ? new MemoryBackend() : new H2Backend(file);
        MongoServer server = new MongoServer(backend);
        server.bind(host, port);
        System.out.println("mongo-java-server listening on " + host + ":" + port + " backend=" + file);
        Runtime.getRuntime().addShutdownHook(new Thread(server::shutdown, "shutdown"));
        Thread.currentThread().join();
    }
}
