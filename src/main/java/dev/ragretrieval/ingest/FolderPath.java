package dev.ragretrieval.ingest;

import java.util.ArrayList;
import java.util.List;

/**
 * Paths below the folder being read, as the generators' include links name them: relative to a
 * page's folder ({@code ../listings/main.rs}) or to a site's ({@code @/snippets/x.js},
 * {@code ../docs}). One rule for all of them: a path that leaves the folder read is none, unless
 * the reader allows it ({@link #reaching}: an include of a file above a Sphinx project's folder).
 */
final class FolderPath {

  private FolderPath() {}

  /** The folder holding {@code page} ("docs/guide/" for "docs/guide/setup.md", "" at the top). */
  static String folderOf(String page) {
    return page.substring(0, page.lastIndexOf('/') + 1);
  }

  /**
   * {@code relative} joined to {@code folder} ("" or "a/b/") with its "." and ".." parts resolved,
   * keeping a closing '/'; null when it is empty, absolute, or leaves the folder read.
   */
  static String below(String folder, String relative) {
    String path = reaching(folder, relative);
    return path == null || path.startsWith("../") ? null : path;
  }

  /**
   * As {@link #below}, but a path that leaves the folder keeps its leading "../" parts
   * ({@code ../CHANGES.rst} from a site in docs/): for the reader to allow when the folder given
   * holds the site's folder and that file too. Null when empty or absolute.
   */
  static String reaching(String folder, String relative) {
    if (relative.isEmpty() || relative.startsWith("/")) {
      return null;
    }
    List<String> parts = new ArrayList<>();
    int ups = 0;
    for (String part : (folder + relative).split("/")) {
      if (part.isEmpty() || part.equals(".")) {
        continue;
      }
      if (part.equals("..")) {
        if (parts.isEmpty()) {
          ups++;
        } else {
          parts.remove(parts.size() - 1);
        }
      } else {
        parts.add(part);
      }
    }
    if (parts.isEmpty()) {
      return null;
    }
    return "../".repeat(ups) + String.join("/", parts) + (relative.endsWith("/") ? "/" : "");
  }
}
