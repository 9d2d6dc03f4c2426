"""What people type, pure: the link parameter types and their strict readers (``params``), the keys every
page shares (``links``) and the cluster's inputs (``cluster``). A topic's own inputs live in its folder."""
