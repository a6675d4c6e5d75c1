import java.lang.reflect.Field;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import software.amazon.dynamodb.services.local.main.ServerRunner;
import software.amazon.dynamodb.services.local.server.DynamoDBProxyServer;

/**
 * DynamoDB Local bound to one address. Its own launcher listens on every interface and has no
 * option to choose one; this builds the server from the same command-line arguments, binds its
 * connectors to the address in the system property dynamodb.host (default 127.0.0.1), and
 * starts it. Run by scripts/local/dynamodb-local.ts with Java's source-file mode.
 */
public final class LoopbackDynamoDbLocal {
  public static void main(String[] args) throws Exception {
    String host = System.getProperty("dynamodb.host", "127.0.0.1");
    DynamoDBProxyServer proxy = ServerRunner.createServerFromCommandLineArgs(args);
    Field field = DynamoDBProxyServer.class.getDeclaredField("server");
    field.setAccessible(true);
    Server jetty = (Server) field.get(proxy);
    for (Connector connector : jetty.getConnectors()) {
      if (connector instanceof ServerConnector) ((ServerConnector) connector).setHost(host);
    }
    proxy.start();
    System.out.println("DynamoDB Local listening on " + host);
  }
}
