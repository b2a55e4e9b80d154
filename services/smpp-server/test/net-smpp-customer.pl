#!/usr/bin/perl
# A customer we did not write: Net::SMPP (Debian libnet-smpp-perl), driven by
# net-smpp.integration.test.ts. Prints one line per event on stdout.
use strict;
use warnings;
use Net::SMPP;
use Encode qw(encode);

$| = 1;
my ($host, $port, $system_id, $password, $mode, $parts) = @ARGV;
alarm 30;

if ($mode eq 'wrong-password') {
    my ($smpp, $resp) = Net::SMPP->new_transceiver($host, port => $port, system_id => $system_id,
        password => 'wrong', interface_version => 0x34);
    printf "bind_status %d\n", $resp ? $resp->{status} : -1;
    exit 0;
}

my ($smpp, $resp) = Net::SMPP->new_transceiver($host, port => $port, system_id => $system_id,
    password => $password, interface_version => 0x34) or die "cannot connect: $!";
printf "bind_status %d\n", $resp->{status};
exit 1 if $resp->{status} != 0;

if ($mode eq 'inbound') {
    # Reads $parts inbound deliver_sm (esm_class 0 or 0x40) and prints each: esm_class, data_coding, octets in hex.
    my $read = 0;
    while ($read < $parts) {
        my $pdu = $smpp->read_pdu() or die "read_pdu: connection lost";
        if ($pdu->{cmd} == 0x00000005) {
            $smpp->deliver_sm_resp(seq => $pdu->{seq}, message_id => '');
            printf "inbound %d %d %s %s %s\n", $pdu->{esm_class}, $pdu->{data_coding}, $pdu->{source_addr},
                $pdu->{destination_addr}, unpack('H*', $pdu->{short_message});
            $read++;
        } elsif ($pdu->{cmd} == 0x00000015) {
            $smpp->enquire_link_resp(seq => $pdu->{seq});
        }
    }
    my $unbind = $smpp->unbind();
    printf "unbind_status %d\n", $unbind ? $unbind->{status} : -1;
    exit 0;
}

my $ascii = $smpp->submit_sm(source_addr => 'ACME', destination_addr => '447911123456', dest_addr_ton => 1,
    data_coding => 0, registered_delivery => 1, short_message => 'Hello from Net::SMPP');
printf "submitted %d %s\n", $ascii->{status}, $ascii->{message_id} // '';
my $arabic = $smpp->submit_sm(source_addr => 'ACME', destination_addr => '447911123456', dest_addr_ton => 1,
    data_coding => 8, registered_delivery => 1, short_message => encode('UTF-16BE', "\x{645}\x{631}\x{62D}\x{628}\x{627}"));
printf "submitted %d %s\n", $arabic->{status}, $arabic->{message_id} // '';

my $receipts = 0;
while ($receipts < 2) {
    my $pdu = $smpp->read_pdu() or die "read_pdu: connection lost";
    if ($pdu->{cmd} == 0x00000005) {
        $smpp->deliver_sm_resp(seq => $pdu->{seq}, message_id => '');
        printf "receipt %s %d %s\n", $pdu->{receipted_message_id} // '', $pdu->{esm_class}, $pdu->{short_message};
        $receipts++;
    } elsif ($pdu->{cmd} == 0x00000015) {
        $smpp->enquire_link_resp(seq => $pdu->{seq});
    }
}
my $unbind = $smpp->unbind();
printf "unbind_status %d\n", $unbind ? $unbind->{status} : -1;
