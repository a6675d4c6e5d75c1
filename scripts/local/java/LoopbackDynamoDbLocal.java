import java.lang.reflect.Field;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;
import software.amazon.dynamodb.services.local.main.ServerRunner;
import software.amazon.dynamodb.services.local.server.DynamoDBProxyServer;

/**
 * DynamoDB Local bound to one address. Its own launcher listens on every interface and has no
 * option to choose one; this builds the server from the same command-line arguments, binds its
 * connectors to the address in the system property dynamodb.host (default 127.0.0.1), and
 * starts it. Run by scripts/local/dynamodb-local.ts with Java's source-file mode.
 *
 * Why it exists: DynamoDB Local takes any credentials, so whoever reaches its port reads and
 * writes every table. Started the stock way on a laptop in an office or on café Wi-Fi, the
 * tables of npm start (the requests typed into the demo page, with names, account numbers and
 * comments) would be open to the whole network. Bound to loopback, only this machine reaches them.
 * And only by that name: a request whose Host is neither loopback nor the bound address (a web
 * page on a domain that resolves to 127.0.0.1, DNS rebinding) is answered 403 before DynamoDB
 * Local sees it (tests/integration/local-hosts.test.ts).
 *
 * It reaches a private field of DynamoDB Local. When a new version moves or changes it, this
 * exits with an error naming what moved: it never starts a server listening on every interface.
 * tests/integration/local-binding.test.ts checks from the machine's network address, on every
 * test run, that the port is not reachable.
 */
public final class LoopbackDynamoDbLocal {
  private static IllegalStateException moved(String what, Throwable cause) {
    return new IllegalStateException(
        "LoopbackDynamoDbLocal: DynamoDB Local's internals moved (" + what + "); refusing to start it on every interface."
            + " Update scripts/local/java/LoopbackDynamoDbLocal.java for this DynamoDB Local version.",
        cause);
  }

  public static void main(String[] args) throws Exception {
    String host = System.getProperty("dynamodb.host", "127.0.0.1");
    DynamoDBProxyServer proxy = ServerRunner.createServerFromCommandLineArgs(args);
    Object server;
    try {
      Field field = DynamoDBProxyServer.class.getDeclaredField("server");
      field.setAccessible(true);
      server = field.get(proxy);
    } catch (ReflectiveOperationException | RuntimeException e) {
      throw moved("no field DynamoDBProxyServer.server", e);
    }
    if (!(server instanceof Server)) throw moved("DynamoDBProxyServer.server is no Jetty Server", null);
    Connector[] connectors = ((Server) server).getConnectors();
    if (connectors.length == 0) throw moved("the Jetty server has no connectors", null);
    for (Connector connector : connectors) {
      if (!(connector instanceof ServerConnector)) throw moved("a connector is a " + connector.getClass().getName(), null);
      ((ServerConnector) connector).setHost(host);
    }
    Set<String> names = new HashSet<>(List.of("localhost", "127.0.0.1", "[::1]", host.contains(":") ? "[" + host + "]" : host));
    Server jetty = (Server) server;
    jetty.setHandler(
        new Handler.Wrapper(jetty.getHandler()) {
          @Override
          public boolean handle(Request request, Response response, Callback callback) throws Exception {
            String named = Request.getServerName(request);
            if (named != null && names.contains(named.contains(":") && !named.startsWith("[") ? "[" + named + "]" : named))
              return super.handle(request, response, callback);
            Response.writeError(request, response, callback, 403, "DynamoDB Local answers requests to this machine only: Host " + named);
            return true;
          }
        });
    proxy.start();
    for (Connector connector : connectors) {
      String bound = ((ServerConnector) connector).getHost();
      if (!host.equals(bound)) throw moved("a connector listens on " + bound + " after start", null);
    }
    System.out.println("DynamoDB Local listening on " + host);
  }
}
