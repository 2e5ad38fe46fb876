// The page around the iframe: nothing to set up.
export {};
