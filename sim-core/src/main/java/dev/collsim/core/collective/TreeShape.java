package dev.collsim.core.collective;

import java.util.ArrayList;
import java.util.List;

/**
 * A tree given by each member's parent (-1 for the root): its children in member order, and the
 * orders the tree algorithms walk it in (children before parents going up, parents first going down).
 */
record TreeShape(int root, List<List<Integer>> children) {
    static TreeShape of(int[] parent) {
        List<List<Integer>> children = new ArrayList<>();
        int root = -1;
        for (int k = 0; k < parent.length; k++) {
            children.add(new ArrayList<>());
        }
        for (int k = 0; k < parent.length; k++) {
            if (parent[k] < 0) {
                root = k;
            } else {
                children.get(parent[k]).add(k);
            }
        }
        return new TreeShape(root, children);
    }

    /** Every member after its children. */
    int[] postOrder() {
        List<Integer> out = new ArrayList<>();
        post(root, out);
        return out.stream().mapToInt(Integer::intValue).toArray();
    }

    /** Every member before its children. */
    int[] preOrder() {
        List<Integer> out = new ArrayList<>();
        pre(root, out);
        return out.stream().mapToInt(Integer::intValue).toArray();
    }

    private void post(int k, List<Integer> out) {
        for (int child : children.get(k)) {
            post(child, out);
        }
        out.add(k);
    }

    private void pre(int k, List<Integer> out) {
        out.add(k);
        for (int child : children.get(k)) {
            pre(child, out);
        }
    }
}
