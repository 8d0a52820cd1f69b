package dev.ragretrieval.web;

import dev.ragretrieval.search.Point;
import dev.ragretrieval.testing.CohereTestServer;
import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.UUID;

/** Ten passages of the textbook from two chapters, the collection the browser test searches. */
final class TextbookChunks {

  static final String ROS = "module-1-ros2";
  static final String HUMANOID = "module-4-humanoid-control";
  static final String BASE_URL = "https://book.example.org/docs/";

  /** Launch-file XML in a chunk's text: the page must show it as characters, never as markup. */
  static final String LAUNCH_XML = "<node pkg=\"demo_nodes_cpp\" exec=\"talker\" name=\"talker\"/>";

  private record Chunk(String chapter, String page, String pageTitle, String section, String text) {}

  private static final List<Chunk> CHUNKS = List.of(
      new Chunk(ROS, "01-intro-ros2", "Introduction to ROS 2 Architecture", "Why ROS 2 Replaced ROS 1",
          "The original Robot Operating System was built around a single central process, the ROS master,"
              + " which every node contacted to find its peers. ROS 2 removes the master: nodes discover each"
              + " other through DDS, support several robots on unreliable wireless links and run on real-time"
              + " operating systems."),
      new Chunk(ROS, "02-nodes-topics", "Nodes, Topics, Publishers and Subscribers", "What Is a ROS 2 Node",
          "A node is the smallest unit of computation in a ROS 2 system: a named participant in the ROS graph"
              + " that owns publishers, subscribers, service servers, action servers, timers and parameters."
              + " Good practice is to give each node one clear responsibility, for example reading an IMU,"
              + " estimating the robot's pose, or commanding the joints of one arm. A humanoid robot therefore"
              + " runs many nodes, and the graph of their connections describes the whole software system."
              + " Each node has a name and an optional namespace, such as /left_arm/joint_controller, and names"
              + " must be unique within the graph. Nodes are usually written as classes that inherit from"
              + " rclpy.node.Node or rclcpp::Node. Several nodes can live in separate processes or be loaded"
              + " as components into one container process, which lets messages pass by pointer and cuts"
              + " latency for camera images."),
      new Chunk(ROS, "02-nodes-topics", "Nodes, Topics, Publishers and Subscribers", "Topics and Message Types",
          "A topic is a named, typed channel for streaming data using the publish-subscribe pattern."
              + " Publishers send messages without knowing who is listening, and every subscriber of the topic"
              + " receives them. A joint state publisher does not care whether one visualizer or five logging"
              + " nodes consume its output."),
      new Chunk(ROS, "03-services-actions", "Services and Actions", "Services",
          "A service is a request and response call between two nodes: the client sends a request and waits"
              + " for exactly one answer. Services suit quick queries such as asking a node for its current"
              + " configuration; long tasks belong in actions, which report feedback and can be cancelled."),
      new Chunk(ROS, "04-parameters-launch", "Parameters and Launch Files", "Launch Files",
          "A launch file starts many nodes at once with their parameters and remappings. In the XML format"
              + " each node is one tag, for example " + LAUNCH_XML + ", and a launch file can include other"
              + " launch files."),
      new Chunk(HUMANOID, "01-kinematics-jacobians", "Kinematics and Jacobians", "Forward Kinematics",
          "Forward kinematics computes the pose of a link, such as the hand or the foot, from the joint"
              + " angles by chaining one homogeneous transform per joint from the base of the robot."),
      new Chunk(HUMANOID, "02-bipedal-locomotion", "Bipedal Locomotion and Balance", "The Zero Moment Point",
          "A walking humanoid keeps its balance while the zero moment point, the point on the ground where"
              + " the contact forces produce no tipping moment, stays inside the support polygon of the feet."),
      new Chunk(HUMANOID, "02-bipedal-locomotion", "Bipedal Locomotion and Balance", "The Walking Gait Cycle",
          "Human and humanoid walking alternates between two phases: in the single-support phase one foot"
              + " carries the robot while the other swings forward, and in the double-support phase both feet"
              + " touch the ground and the weight shifts from one leg to the other."),
      new Chunk(HUMANOID, "03-whole-body-control-mpc", "Whole-Body Control and Model Predictive Control",
          "Joint Controllers as ROS 2 Nodes",
          "On a real humanoid the whole-body controller usually runs as ROS 2 nodes: a state estimator node"
              + " publishes the floating-base pose, and a controller node turns the balance and posture tasks"
              + " into torque commands for the joints a thousand times per second."),
      new Chunk(HUMANOID, "04-grasping-manipulation", "Grasping and Manipulation", "Grasp Planning",
          "Grasp planning chooses where the fingers of the hand touch an object so that the contact forces"
              + " can resist gravity and the disturbances of the motion that follows."));

  private TextbookChunks() {}

  static int count(String chapter) {
    return (int) CHUNKS.stream().filter(c -> c.chapter().equals(chapter)).count();
  }

  /** Points whose vectors are what the Cohere test server answers for their text. */
  static List<Point> points(int dimension) {
    return java.util.stream.IntStream.range(0, CHUNKS.size()).mapToObj(i -> {
      Chunk c = CHUNKS.get(i);
      String chunkId = c.page() + "#" + i;
      JsonObject payload = new JsonObject()
          .put("text", c.text())
          .put("source_url", BASE_URL + c.chapter() + "/" + c.page())
          .put("page_title", c.pageTitle())
          .put("chapter", c.chapter())
          .put("section", c.section())
          .put("chunk_index", i)
          .put("chunk_id", chunkId)
          .put("source_type", "web");
      String id = UUID.nameUUIDFromBytes(chunkId.getBytes(StandardCharsets.UTF_8)).toString();
      return new Point(id, CohereTestServer.vectorFor(c.text(), dimension), payload);
    }).toList();
  }
}
