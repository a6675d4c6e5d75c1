import bank.termination.events.StatusDecisionEvent;
import bank.termination.events.TerminationRequestErasedEvent;
import bank.termination.events.TerminationRequestStatusChangedEvent;
import bank.termination.events.TerminationRequestSubmittedEvent;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import java.io.File;

/**
 * A back office's first step with the generated models (tests/generators/event-models.test.ts):
 * each event file given is read into the model of its message, chosen by source and detail-type
 * as a rule would, with unknown fields refused; one line each, the model and what it read, or why
 * it could not.
 */
public class ReadSampleEvents {
  public static void main(String[] args) throws Exception {
    ObjectMapper mapper = new ObjectMapper()
        .registerModule(new JavaTimeModule())
        .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
    for (String path : args) {
      File file = new File(path);
      JsonNode tree = mapper.readTree(file);
      String source = tree.path("source").asText();
      String detailType = tree.path("detail-type").asText();
      try {
        if (source.equals("bank.back-office")) {
          StatusDecisionEvent event = mapper.treeToValue(tree, StatusDecisionEvent.class);
          System.out.println(file.getName() + ": StatusDecisionEvent " + event.getDetail().getEventId() + " " + event.getDetail().getStatus() + " " + event.getTime().toInstant());
        } else if (detailType.equals("TerminationRequestSubmitted")) {
          TerminationRequestSubmittedEvent event = mapper.treeToValue(tree, TerminationRequestSubmittedEvent.class);
          System.out.println(file.getName() + ": TerminationRequestSubmittedEvent " + event.getDetail().getEventId() + " " + event.getDetail().getStatus() + " " + event.getDetail().getBankDetails().getBik());
        } else if (detailType.equals("TerminationRequestErased")) {
          TerminationRequestErasedEvent event = mapper.treeToValue(tree, TerminationRequestErasedEvent.class);
          System.out.println(file.getName() + ": TerminationRequestErasedEvent " + event.getDetail().getEventId() + " " + event.getDetail().getRequestNumber() + " " + event.getDetail().getErasedAt().toInstant());
        } else {
          TerminationRequestStatusChangedEvent event = mapper.treeToValue(tree, TerminationRequestStatusChangedEvent.class);
          System.out.println(file.getName() + ": TerminationRequestStatusChangedEvent " + event.getDetail().getEventId() + " " + event.getDetail().getStatus() + " " + event.getDetail().getChangedBy());
        }
      } catch (Exception e) {
        System.out.println(file.getName() + ": not read: " + e.getClass().getSimpleName());
      }
    }
  }
}
