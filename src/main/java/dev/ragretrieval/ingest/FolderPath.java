package dev.ragretrieval.ingest;

import java.util.ArrayList;
import java.util.List;

/**
 * Paths below the folder being read, as the generators' include links name them: relative to a
 * page's folder ({@code ../listings/main.rs}) or to a site's ({@code @/snippets/x.js},
 * {@code ../docs}). One rule for all of them: a path that leaves the folder read is none.
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
    if (relative.isEmpty() || relative.startsWith("/")) {
      return null;
    }
    List<String> parts = new ArrayList<>();
    for (String part : (folder + relative).split("/")) {
      if (part.isEmpty() || part.equals(".")) {
        continue;
      }
      if (part.equals("..")) {
        if (parts.isEmpty()) {
          return null;
        }
        parts.remove(parts.size() - 1);
      } else {
        parts.add(part);
      }
    }
    if (parts.isEmpty()) {
      return null;
    }
    return String.join("/", parts) + (relative.endsWith("/") ? "/" : "");
  }
}
