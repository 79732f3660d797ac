/** A mounted view: the router disposes it (listeners, pending requests) before mounting the next. */
export interface View {
  dispose(): void;
}
